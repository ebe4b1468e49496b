export type {
  AgendaMongoConfig,
  AgendaPostgresConfig,
  AgendaQueueConfig,
  AgendaTuning,
} from "./config.js";
export { routineJob, runJob, webhookJob } from "./job-names.js";
export { AgendaRunQueueLive } from "./run-queue.js";
