import { MongoBackend } from "@agendajs/mongo-backend";
import type { AgendaMongoConfig } from "./config.js";

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
  return { backend, close: () => backend.disconnect() };
};
