export {
  type AgendaMongoConfig,
  type AgendaPostgresConfig,
  type AgendaQueueConfig,
  type AgendaTuning,
  agendaTuningFromEnv,
} from "./config.js";
export { routineJob, runJob } from "./job-names.js";
export { AgendaRunQueueLive } from "./run-queue.js";
