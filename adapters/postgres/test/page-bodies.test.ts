import { anAcceptance, aQueuedRun, seedOwnerWithDataset } from "@gleaner/conformance";
import { Storage } from "@gleaner/core";
import { expect } from "chai";
import { Effect, ManagedRuntime, Option } from "effect";
import pg from "pg";
import { PostgresStoreLive } from "../src/index.js";
import { dropSchema, freshSchema, whenPostgresReachable } from "./support.js";

await whenPostgresReachable("postgres store: page bodies once per digest", (url) => {
  describe("postgres store: page bodies once per digest", () => {
    const schema = freshSchema();
    const runtime = ManagedRuntime.make(PostgresStoreLive({ url, schema, poolSize: 4 }));
    const client = new pg.Client({ connectionString: url });
    before(async () => {
      await runtime.runPromise(Effect.void);
      await client.connect();
    });
    after(async () => {
      await client.end();
      await runtime.dispose();
      await dropSchema(url, schema);
    });

    it("stores a page read unchanged by two runs once, and serves it with each run's artifact", async () => {
      const storage = await runtime.runPromise(Storage);
      const run = <A, E>(effect: Effect.Effect<A, E>) => runtime.runPromise(effect);
      const { dataset } = await runtime.runPromise(seedOwnerWithDataset(10));
      const bodies = async () =>
        Number((await client.query(`select count(*) from "${schema}".page_bodies`)).rows[0].count);
      const runIds: string[] = [];
      for (const key of ["first", "second"]) {
        const queued = aQueuedRun(dataset);
        await run(storage.insertRun(queued));
        const running = Option.getOrThrow(await run(storage.claimRun(queued.id, new Date().toISOString(), false)));
        // Both runs read the same page (same digest, same body); each accepts one new row.
        const outcome = await run(storage.acceptRun(anAcceptance(running, 1, [key])));
        expect(outcome._tag).to.equal("Accepted");
        runIds.push(running.id);
        expect(await bodies(), `after the ${key} run`).to.equal(1);
      }
      for (const runId of runIds) {
        const artifact = Option.getOrThrow(await run(storage.getArtifact(runId as never, "page-1")));
        expect(artifact.body).to.equal("<p>a\u0000b</p>");
        const evidence = Option.getOrThrow(await run(storage.getRunEvidence(runId as never)));
        expect(evidence.artifacts.map((a) => a.body)).to.deep.equal(["<p>a\u0000b</p>"]);
      }
      const perRun = await client.query(`select count(*) from "${schema}".run_artifacts where body is not null`);
      expect(Number(perRun.rows[0].count)).to.equal(0);
    });
  });
});
