import { suite } from "@gleaner/conformance";
import { after, describe } from "mocha";
import { MongoStoreLive } from "../src/index.js";
import { dropCollection, dropDatabase, freshDatabase, whenMongoConfigured } from "./support.js";

// The whole spec over HTTP on the MongoDB store: once with the in-process queue (every case,
// schedules included), once with Agenda on the same MongoDB deployment (the durable profile).
// The Agenda adapter is loaded only here, so the file costs nothing when the sets do not run.

const queueSet = await (async () => {
  const url = process.env.GLEANER_MONGODB_URL;
  if (!url) return null;
  const { AgendaRunQueueLive } = await import("@gleaner/agenda");
  return (collection: string) =>
    AgendaRunQueueLive({ backend: "mongodb", url, collection, processEvery: 250, lockLifetimeMs: 10_000 });
})();

whenMongoConfigured("Gleaner conformance: mongodb", (url) => {
  const database = freshDatabase();
  describe(`mongodb adapter (database ${database})`, () => {
    suite({ name: "mongodb", layer: () => MongoStoreLive({ url, database }) });
    after(() => dropDatabase(url, database));
  });
});

whenMongoConfigured("Gleaner conformance: mongodb + agenda(mongodb)", (url) => {
  const database = freshDatabase();
  const collection = `agenda_${database}`;
  // A named queue (research's extra hosts) is a jobs collection of its own.
  const collections = new Set([collection]);
  const queueNamed = (name?: string) => {
    const named = name ? `${collection}_${name}` : collection;
    collections.add(named);
    return named;
  };
  describe(`mongodb + agenda(mongodb) (database ${database}, jobs in ${collection})`, () => {
    suite({
      name: "mongodb + agenda(mongodb)",
      layer: () => MongoStoreLive({ url, database }),
      ...(queueSet ? { queue: (name?: string) => queueSet(queueNamed(name)) } : {}),
      // Agenda's scheduler fires on real time: the schedule cases (virtual time) are left out.
      supports: { virtualTime: false },
    });
    after(async () => {
      await dropDatabase(url, database);
      for (const named of collections) await dropCollection(url, named);
    });
  });
});
