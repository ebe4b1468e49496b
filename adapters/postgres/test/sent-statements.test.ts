import { anAcceptance, aQueuedRun, seedOwnerWithDataset } from "@gleaner/conformance";
import { Storage } from "@gleaner/core";
import { expect } from "chai";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as ManagedRuntime from "effect/ManagedRuntime";
import * as Option from "effect/Option";
import pg from "pg";
import { makeDb } from "../src/db.js";
import { PostgresStoreLive } from "../src/index.js";
import { dropSchema, freshSchema, whenPostgresReachable } from "./support.js";

await whenPostgresReachable("postgres store: statements sent ahead, and page bodies kept early", (url) => {
  describe("postgres store: statements sent ahead, and page bodies kept early", () => {
    const schema = freshSchema();
    const runtime = ManagedRuntime.make(PostgresStoreLive({ url, schema, poolSize: 4 }));
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    const count = async (table: string) =>
      Number((await pool.query(`select count(*) from "${schema}".${table}`)).rows[0].count);
    before(async () => {
      await runtime.runPromise(Effect.void);
      await pool.query(`create table "${schema}".sent_probe (n integer primary key)`);
    });
    after(async () => {
      await pool.end();
      await runtime.dispose();
      await dropSchema(url, schema);
    });

    it("rolls back every statement of a transaction when one sent ahead fails, and runs none after it", async () => {
      const db = makeDb(pool);
      const insert = `insert into "${schema}".sent_probe (n) values ($1)`;
      const exit = await Effect.runPromiseExit(
        db.transaction((tx) =>
          Effect.gen(function* () {
            const first = yield* tx.send(insert, [1]);
            const duplicate = yield* tx.send(insert, [1]);
            const third = yield* tx.send(insert, [3]);
            yield* first;
            yield* duplicate;
            yield* third;
          }),
        ),
      );
      expect(Exit.isFailure(exit), "the duplicate key fails the transaction").to.equal(true);
      // Had the third been dispatched after the ROLLBACK, it would have committed on its own.
      expect(await count("sent_probe")).to.equal(0);
      const committed = await Effect.runPromiseExit(
        db.transaction((tx) =>
          Effect.gen(function* () {
            const sent = [yield* tx.send(insert, [1]), yield* tx.send(insert, [2])];
            yield* tx.query(insert, [3]);
            yield* Effect.all(sent);
          }),
        ),
      );
      expect(Exit.isSuccess(committed)).to.equal(true);
      expect(await count("sent_probe")).to.equal(3);
    });

    // The fixture's body holds a NUL byte, which a text parameter could not carry.
    it("keeps a page body before the run has an outcome, and an accepted run's artifact serves it", async () => {
      const storage = await runtime.runPromise(Storage);
      const run = <A, E>(effect: Effect.Effect<A, E>) => runtime.runPromise(effect);
      const { dataset } = await run(seedOwnerWithDataset(10));
      const queued = aQueuedRun(dataset);
      await run(storage.insertRun(queued));
      const running = Option.getOrThrow(await run(storage.claimRun(queued.id, new Date().toISOString(), false)));
      const acceptance = anAcceptance(running, 1, ["kept"]);
      const [artifact] = acceptance.evidence.artifacts;
      if (!artifact?.body) throw new Error("the fixture acceptance has a page artifact with a body");
      await run(storage.keepPageBody!(artifact.sha256, artifact.body));
      const stored = await pool.query(`select body from "${schema}".page_bodies where sha256 = $1`, [artifact.sha256]);
      expect(stored.rows[0]?.body.toString("utf8")).to.equal(artifact.body);
      // Kept twice (another run read the same bytes): still one body.
      await run(storage.keepPageBody!(artifact.sha256, artifact.body));
      expect((await run(storage.acceptRun(acceptance)))._tag).to.equal("Accepted");
      const served = Option.getOrThrow(await run(storage.getArtifact(running.id, artifact.id)));
      expect(served.body).to.equal(artifact.body);
      expect(
        Number(
          (await pool.query(`select count(*) from "${schema}".page_bodies where sha256 = $1`, [artifact.sha256]))
            .rows[0].count,
        ),
      ).to.equal(1);
    });
  });
});
