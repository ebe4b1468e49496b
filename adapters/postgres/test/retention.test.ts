import { evidenceOf, seedOwnerWithDataset } from "@gleaner/conformance";
import { Storage } from "@gleaner/core";
import { expect } from "chai";
import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import { aClaimedRun, aStoreAndClientOnItsOwnSchema, twoStoresOnOneSchema, whenPostgresReachable } from "./support.js";

// A prune deletes the page bodies nothing holds; an acceptance that finds its body already stored
// takes no lock on it. The prune must not delete a body an acceptance in flight is about to hold.
await whenPostgresReachable("postgres store: a prune beside an acceptance in flight", (url) => {
  describe("postgres store: a prune beside an acceptance in flight", () => {
    const { schema, run, client } = aStoreAndClientOnItsOwnSchema(url);
    const storage = <A, E>(use: (s: Storage["Type"]) => Effect.Effect<A, E>) => run(Effect.flatMap(Storage, use));

    it("keeps a body that a transaction in flight finds stored and cites, deleting it only once nothing holds it", async () => {
      const { dataset } = await run(seedOwnerWithDataset(10));
      // An old run whose record is due: the only holder of the body, through its artifact.
      const old = await run(aClaimedRun(dataset));
      const evidence = evidenceOf(old);
      const [artifact] = evidence.artifacts;
      await storage((s) => s.finishRun({ ...old, status: "failed", completedAt: old.startedAt }, evidence));
      const bodies = async () =>
        (await client.query(`select 1 from "${schema}".page_bodies where sha256 = $1`, [artifact!.sha256])).rowCount;
      expect(await bodies()).to.equal(1);

      // Another run's write in flight, as an acceptance writes it: the body found stored, an artifact citing it.
      const next = await run(aClaimedRun(dataset));
      await client.query("begin");
      await client.query(
        `insert into "${schema}".page_bodies (sha256, body) values ($1, $2) on conflict (sha256) do nothing`,
        [artifact!.sha256, Buffer.from(artifact!.body!, "utf8")],
      );
      await client.query(
        `insert into "${schema}".run_artifacts (run_id, position, id, kind, url, content_type, sha256, size, truncated, created_at)
         values ($1, 0, 'page-1', 'page', $2, 'text/html', $3, $4, false, now())`,
        [next.id, artifact!.url, artifact!.sha256, artifact!.size],
      );
      const pruned = storage((s) => s.pruneRunRecords(new Date(Date.now() + 60_000).toISOString(), 100));
      await new Promise((resolve) => setTimeout(resolve, 500));
      await client.query("commit");
      expect(await pruned).to.equal(1);
      expect(Option.isNone(await storage((s) => s.getRunEvidence(old.id)))).to.equal(true);
      expect(await bodies(), "the body the committed artifact cites").to.equal(1);

      // Once the citing artifact is gone too, the next prune takes the body.
      await client.query(`update "${schema}".runs set completed_at = now() - interval '1 day' where id = $1`, [
        next.id,
      ]);
      await client.query(
        `insert into "${schema}".run_evidence (run_id, trace, facts, failures) values ($1, '{}', '[]', '[]')`,
        [next.id],
      );
      expect(await storage((s) => s.pruneRunRecords(new Date().toISOString(), 100))).to.equal(1);
      expect(await bodies()).to.equal(0);
    });
  });

  describe("postgres store: a prune while acceptances hold page_bodies", () => {
    const { schema, run, client } = aStoreAndClientOnItsOwnSchema(url);
    const storage = <A, E>(use: (s: Storage["Type"]) => Effect.Effect<A, E>) => run(Effect.flatMap(Storage, use));

    it("waits a second at most for the bodies' lock, removes the records, and leaves the bodies to the next prune", async () => {
      const { dataset } = await run(seedOwnerWithDataset(10));
      const old = await run(aClaimedRun(dataset));
      const evidence = evidenceOf(old);
      await storage((s) => s.finishRun({ ...old, status: "failed", completedAt: old.startedAt }, evidence));
      const bodies = async () =>
        (await client.query(`select count(*)::int as n from "${schema}".page_bodies`)).rows[0].n as number;
      expect(await bodies()).to.equal(1);
      // A transaction writing a body, held open past the prune's wait.
      await client.query("begin");
      await client.query(
        `insert into "${schema}".page_bodies (sha256, body) values ($1, 'x') on conflict (sha256) do nothing`,
        ["f".repeat(64)],
      );
      const started = performance.now();
      const cutoff = new Date(Date.now() + 60_000).toISOString();
      expect(await storage((s) => s.pruneRunRecords(cutoff, 100))).to.equal(1);
      expect(performance.now() - started, "the prune's wait, in ms").to.be.below(5_000);
      await client.query("rollback");
      expect(await bodies(), "left for the next prune").to.equal(1);
      expect(await storage((s) => s.pruneRunRecords(cutoff, 100))).to.equal(0);
      expect(await bodies()).to.equal(0);
    });
  });

  describe("postgres store: two processes pruning at once", () => {
    const { schema, first, second, client } = twoStoresOnOneSchema(url);

    it("removes each record once, neither prune failing on the other's locks", async () => {
      const { dataset } = await first.runPromise(seedOwnerWithDataset(10));
      const runs = [];
      for (let n = 0; n < 30; n++) {
        const running = await first.runPromise(aClaimedRun(dataset));
        await first.runPromise(
          Effect.flatMap(Storage, (s) =>
            s.finishRun({ ...running, status: "failed", completedAt: running.startedAt }, evidenceOf(running)),
          ),
        );
        runs.push(running);
      }
      const cutoff = new Date(Date.now() + 60_000).toISOString();
      const prune = (store: typeof first) =>
        store.runPromise(Effect.flatMap(Storage, (s) => s.pruneRunRecords(cutoff, 7)));
      // Each prunes batches of 7 until it finds none left; the two run side by side.
      const drain = async (store: typeof first) => {
        let total = 0;
        for (let removed = await prune(store); removed > 0; removed = await prune(store)) total += removed;
        return total;
      };
      const [a, b] = await Promise.all([drain(first), drain(second)]);
      expect(a + b).to.equal(runs.length);
      const left = await client.query(`select count(*)::int as n from "${schema}".run_evidence`);
      expect(left.rows[0].n).to.equal(0);
      const bodies = await client.query(`select count(*)::int as n from "${schema}".page_bodies`);
      expect(bodies.rows[0].n).to.equal(0);
    });
  });
});
