import { createHash } from "node:crypto";
import { anAcceptance, aQueuedRun, seedOwnerWithDataset } from "@gleaner/conformance";
import { Storage } from "@gleaner/core";
import { expect } from "chai";
import * as Effect from "effect/Effect";
import * as ManagedRuntime from "effect/ManagedRuntime";
import * as Option from "effect/Option";
import pg from "pg";
import { PostgresStoreLive } from "../src/index.js";
import { dropSchema, freshSchema, whenPostgresReachable } from "./support.js";

await whenPostgresReachable("postgres store: an unchanged re-run writes no row and no page body again", (url) => {
  describe("postgres store: an unchanged re-run writes no row and no page body again", () => {
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
        const running = Option.getOrThrow(await run(storage.claimRun(queued.id, new Date().toISOString(), false))).run;
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

    it("sends no body the run already stored while it read (bodiesStored), and every other one", async () => {
      const storage = await runtime.runPromise(Storage);
      const run = <A, E>(effect: Effect.Effect<A, E>) => runtime.runPromise(effect);
      const { dataset } = await runtime.runPromise(seedOwnerWithDataset(10));
      const stored = async (sha256: string) =>
        Number(
          (await client.query(`select count(*) from "${schema}".page_bodies where sha256 = $1`, [sha256])).rows[0]
            .count,
        );
      for (const [key, claimed] of [
        ["taken", true],
        ["sent", false],
      ] as const) {
        const queued = aQueuedRun(dataset);
        await run(storage.insertRun(queued));
        const running = Option.getOrThrow(await run(storage.claimRun(queued.id, new Date().toISOString(), false))).run;
        const base = anAcceptance(running, 1, [key]);
        const sha256 = key
          .repeat(64)
          .slice(0, 64)
          .replace(/[^0-9a-f]/g, "e");
        const [page] = base.evidence.artifacts;
        const artifacts = [{ ...page!, sha256, body: `<p>${key}</p>` }];
        const outcome = await run(
          storage.acceptRun({
            ...base,
            evidence: { ...base.evidence, artifacts },
            ...(claimed ? { bodiesStored: [sha256] } : {}),
          }),
        );
        expect(outcome._tag).to.equal("Accepted");
        // Said stored (and here, on purpose, not): not sent again; not said stored: sent.
        expect(await stored(sha256), key).to.equal(claimed ? 0 : 1);
      }
    });

    it("answers a kept read with its body as it was read, NUL bytes and all", async () => {
      const storage = await runtime.runPromise(Storage);
      const run = <A, E>(effect: Effect.Effect<A, E>) => runtime.runPromise(effect);
      const { dataset } = await runtime.runPromise(seedOwnerWithDataset(10));
      const bodies = ["<p>ünï ✓ \u{1F600} plain</p>", "<p>a\u0000b ünï</p>", ""];
      const queued = aQueuedRun(dataset);
      await run(storage.insertRun(queued));
      const running = Option.getOrThrow(await run(storage.claimRun(queued.id, new Date().toISOString(), false))).run;
      const base = anAcceptance(running, 1, ["kept"]);
      const [page] = base.evidence.artifacts;
      const sha256Of = (body: string) => createHash("sha256").update(body).digest("hex");
      const url = (i: number) => `http://127.0.0.1/kept-${i}`;
      const outcome = await run(
        storage.acceptRun({
          ...base,
          evidence: {
            ...base.evidence,
            artifacts: bodies.map((body, i) => ({ ...page!, id: `page-${i}`, sha256: sha256Of(body), body })),
          },
          pageReads: {
            recipe: "recipe-1",
            pages: bodies.map((body, i) => ({
              url: url(i),
              finalUrl: url(i),
              sha256: sha256Of(body),
              contentType: "text/html",
              etag: null,
              lastModified: null,
              extraction: { records: [], entries: [], next: null },
              reused: false,
              body,
            })),
          },
        }),
      );
      expect(outcome._tag).to.equal("Accepted");
      const kept = await run(storage.acceptedReads(dataset.id));
      expect(new Map(kept.map((read) => [read.url, read.body]))).to.deep.equal(
        new Map(bodies.map((body, i) => [url(i), body])),
      );
    });

    it("leaves every row record untouched when a run saw them unchanged (one sighting instead)", async () => {
      const storage = await runtime.runPromise(Storage);
      const run = <A, E>(effect: Effect.Effect<A, E>) => runtime.runPromise(effect);
      const { dataset } = await runtime.runPromise(seedOwnerWithDataset(10));
      const claim = async (offsetMs: number) => {
        const queued = aQueuedRun(dataset, offsetMs);
        await run(storage.insertRun(queued));
        return Option.getOrThrow(await run(storage.claimRun(queued.id, new Date().toISOString(), false))).run;
      };
      const first = anAcceptance(await claim(0), 1, ["a", "b", "c"]);
      await run(storage.acceptRun(first));
      // xmin is the id of the transaction that wrote a row version: a rewrite changes it.
      const versions = async () =>
        (
          await client.query(`select id, xmin::text from "${schema}".rows where dataset_id = $1 order by id`, [
            dataset.id,
          ])
        ).rows;
      const before = await versions();
      const second = await claim(60_000);
      const seen = first.rows.map(({ row }) => ({
        row: { ...row, lastSeenRunId: second.id, observedAt: new Date().toISOString(), status: "unchanged" as const },
        expectedRevisionId: row.revisionId,
        seenOnly: true,
      }));
      expect((await run(storage.acceptRun({ ...anAcceptance(second, 1, []), rows: seen })))._tag).to.equal("Accepted");
      expect(await versions()).to.deep.equal(before);
      for (const row of await run(storage.loadRows(dataset.id))) {
        expect(row).to.include({ lastSeenRunId: second.id, status: "unchanged" });
      }
    });
  });
});
