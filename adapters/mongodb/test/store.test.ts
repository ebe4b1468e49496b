import { anOwner, storeContract } from "@gleaner/conformance";
import { Storage } from "@gleaner/core";
import { expect } from "chai";
import * as Effect from "effect/Effect";
import * as Either from "effect/Either";
import * as ManagedRuntime from "effect/ManagedRuntime";
import { after, describe, it } from "mocha";
import { MongoStoreLive } from "../src/index.js";
import { dropDatabase, freshDatabase, whenMongoConfigured } from "./support.js";

// The Storage port's concurrency promises, through the port, against a real server.
whenMongoConfigured("mongodb store: concurrency and idempotency", (url) => {
  const database = freshDatabase();
  storeContract({ name: "mongodb store", layer: () => MongoStoreLive({ url, database }) });

  describe("mongodb store: set-up", () => {
    const runtime = ManagedRuntime.make(MongoStoreLive({ url, database }));
    const run = <A, E>(f: (storage: typeof Storage.Service) => Effect.Effect<A, E>) =>
      runtime.runPromise(Effect.flatMap(Storage, f));
    after(async () => {
      await runtime.dispose();
      await dropDatabase(url, database);
    });

    it("starts again on a database it already set up (collections and indexes exist)", async () => {
      const again = ManagedRuntime.make(MongoStoreLive({ url, database }));
      try {
        const owner = anOwner();
        await again.runPromise(Effect.flatMap(Storage, (s) => s.createOwner(owner)));
        const taken = await run((s) => Effect.either(s.createOwner({ ...anOwner(), name: owner.name })));
        expect(Either.isLeft(taken) && taken.left).to.include({ code: "owner_exists" });
      } finally {
        await again.dispose();
      }
    });
  });
});
