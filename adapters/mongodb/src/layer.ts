import { Credits, Storage, StorageFailure, type StorageService } from "@gleaner/core";
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import { MongoClient, WriteConcern } from "mongodb";
import { makeCredits } from "./credits.js";
import { makeDeleteDataset } from "./delete-dataset.js";
import { makePruneRunRecords } from "./retention.js";
import { makeDatasetMethods } from "./datasets.js";
import { databaseName, describeTarget, type HelloAnswer, replicaSetProblem, storageFailure } from "./errors.js";
import { makeMongo } from "./mongo.js";
import { makeRowMethods } from "./rows.js";
import { makeRunMethods } from "./runs.js";
import { makeWebhookMethods } from "./webhooks.js";
import { collectionsOf, ensureSchema } from "./schema.js";

export interface MongoConfig {
  /** A mongodb:// or mongodb+srv:// connection string to a replica set or sharded cluster. */
  readonly url: string;
  /** The database holding Gleaner's collections: default the one named in the URL, else "gleaner". */
  readonly database?: string;
}

/**
 * Storage and Credits on one MongoDB database. Building the layer connects, refuses a standalone
 * server (transactions need a replica set), and creates the collections and indexes that are
 * missing; releasing it closes the client. Nothing connects on import.
 */
export const MongoStoreLive = (config: MongoConfig): Layer.Layer<Storage | Credits, StorageFailure> =>
  Layer.scopedContext(
    Effect.gen(function* () {
      const target = describeTarget(config.url);
      const client = yield* Effect.acquireRelease(
        Effect.try({
          try: () =>
            new MongoClient(config.url, {
              appName: "gleaner",
              // Every write outside a transaction is acknowledged by a majority too, so what the API
              // confirmed survives a failover; transactions set the same explicitly (mongo.ts).
              writeConcern: new WriteConcern("majority"),
              // Fail a start against an unreachable server in seconds, not the default 30 s.
              serverSelectionTimeoutMS: 10_000,
              // Optional port fields that are absent must stay absent, not be stored as null.
              ignoreUndefined: true,
            }),
          catch: storageFailure(`configuring the client for ${target} (GLEANER_MONGODB_URL)`),
        }),
        (client) => Effect.promise(() => client.close()),
      );
      yield* Effect.tryPromise({ try: () => client.connect(), catch: storageFailure(`connecting to ${target}`) });
      const hello = yield* Effect.tryPromise({
        try: () => client.db("admin").command({ hello: 1 }) as Promise<HelloAnswer>,
        catch: storageFailure(`asking ${target} what it is (hello)`),
      });
      const problem = replicaSetProblem(hello, target);
      if (problem !== null) return yield* Effect.fail(new StorageFailure({ message: problem }));

      const db = client.db(databaseName(config.url, config.database));
      yield* Effect.tryPromise({
        try: () => ensureSchema(db),
        catch: storageFailure(`creating collections and indexes in ${target} (database ${db.databaseName})`),
      });
      const mongo = makeMongo(client, collectionsOf(db));
      const storage: StorageService = {
        ...makeDatasetMethods(mongo),
        ...makeDeleteDataset(mongo),
        ...makePruneRunRecords(mongo),
        ...makeRunMethods(mongo),
        ...makeRowMethods(mongo),
        ...makeWebhookMethods(mongo),
      };
      return Context.make(Storage, storage).pipe(Context.add(Credits, makeCredits(mongo)));
    }),
  );
