import { MongoBackend, type MongoJobRepository } from "@agendajs/mongo-backend";
import type { AgendaMongoConfig } from "./config.js";
import { runJob } from "./job-names.js";

/**
 * Agenda's MongoDB backend. It polls (every processEvery); prompt pickup would need
 * MongoChangeStreamNotificationChannel on a replica set. Not exercised in CI: no MongoDB server
 * can be installed on the project's machines (see docs/DESIGN.md).
 */
export const prepareMongo = async (config: AgendaMongoConfig) => {
  const backend = new MongoBackend({
    address: config.url,
    collection: config.collection ?? "agendaJobs",
    ensureIndex: config.ensureSchema !== false,
  });
  // Fair scheduling (run-queue.ts) ranks a job by its owner's run jobs not yet taken, as on
  // PostgreSQL. The repository's collection exists once Agenda has connected the backend, which
  // happens before the first enqueue; finished run jobs are removed, so they are not counted.
  const waitingRuns = (ownerId: string): Promise<number> =>
    (backend.repository as MongoJobRepository).collection.countDocuments({
      name: runJob,
      lockedAt: null,
      "data.ownerId": ownerId,
    });
  return { backend, close: () => backend.disconnect(), waitingRuns };
};
