import { evidenceOf, seedOwnerWithDataset } from "@gleaner/conformance";
import { type RunArtifact, type RunEvidence, Storage } from "@gleaner/core";
import { expect } from "chai";
import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import pg from "pg";
import { makeDb } from "../src/db.js";
import { writeEvidence } from "../src/evidence.js";
import { aClaimedRun, aStoreAndClientOnItsOwnSchema, whenPostgresReachable } from "./support.js";

// Decision 0042: a run's evidence, its artifacts and the end of its in-flight trace are written by
// one statement. Written again, the evidence is replaced whole: artifacts beyond the new ones go.
await whenPostgresReachable("postgres store: a run's evidence written in one statement", (url) => {
  describe("postgres store: a run's evidence written in one statement", () => {
    const { schema, run, client } = aStoreAndClientOnItsOwnSchema(url);

    it("replaces the evidence whole, artifacts past the new ones included, and ends the in-flight trace", async () => {
      const { dataset } = await run(seedOwnerWithDataset(10));
      const running = await run(aClaimedRun(dataset));
      const base = evidenceOf(running);
      const artifact = (n: number): RunArtifact => ({
        ...base.artifacts[0]!,
        id: `page-${n}`,
        url: `http://127.0.0.1/page-${n}`,
      });
      const evidence = (count: number): RunEvidence => ({
        ...base,
        artifacts: Array.from({ length: count }, (_, n) => artifact(n + 1)),
      });
      await client.query(
        `insert into "${schema}".run_trace_progress (run_id, trace, updated_at) values ($1, '{}'::json, now())`,
        [running.id],
      );
      const pool = new pg.Pool({ connectionString: url, max: 1, options: `-c search_path=${schema}` });
      try {
        const write = (written: RunEvidence) =>
          Effect.runPromise(makeDb(pool).transaction((tx) => writeEvidence(tx, running.id, written)));
        await write(evidence(3));
        const artifacts = async () =>
          (
            await client.query(
              `select position, id from "${schema}".run_artifacts where run_id = $1 order by position`,
              [running.id],
            )
          ).rows;
        expect(await artifacts()).to.deep.equal([
          { position: 0, id: "page-1" },
          { position: 1, id: "page-2" },
          { position: 2, id: "page-3" },
        ]);
        const progress = await client.query(`select 1 from "${schema}".run_trace_progress where run_id = $1`, [
          running.id,
        ]);
        expect(progress.rowCount).to.equal(0);
        await write({ ...evidence(1), artifacts: [artifact(9)] });
        expect(await artifacts()).to.deep.equal([{ position: 0, id: "page-9" }]);
        const stored = Option.getOrThrow(
          await run(Effect.flatMap(Storage, (storage) => storage.getRunEvidence(running.id))),
        );
        expect(stored.artifacts.map((a) => [a.id, a.url, a.body])).to.deep.equal([
          ["page-9", "http://127.0.0.1/page-9", artifact(9).body],
        ]);
      } finally {
        await pool.end();
      }
    });
  });
});
