import { createHash } from "node:crypto";
import { type AcceptedRead, newId, type RunAcceptance, type RunEvidence } from "@gleaner/core";
import { expect } from "chai";
import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import { it } from "../runner.js";
import { aDataset, anAcceptance, anOwner, aQueuedRun, evidenceOf } from "./fixtures.js";
import type { StoreHarness } from "./harness.js";

/**
 * The port's methods no other case of the contract calls, each on its own: owners by name, active
 * routines, a dataset's runs newest first, a run's trace in flight, and the page reads an accepted
 * run keeps (an optional method: a store without it is checked by the fallback's answer), and the
 * connection pool a store with one reports (a store without one prints that the case did not run).
 */
export const methodStoreCases = ({ name, run, runningRun }: StoreHarness): void => {
  it("finds an owner by name, and no owner for a name nobody has", async () => {
    const owner = anOwner();
    await run((s) => s.createOwner(owner));
    expect(Option.getOrThrow(await run((s) => s.findOwnerByName(owner.name)))).to.deep.equal(owner);
    expect(Option.isNone(await run((s) => s.findOwnerByName(`nobody-${newId()}`)))).to.equal(true);
  });

  it("lists the datasets whose routine is active, with their cron, across owners; not paused or deleted ones", async () => {
    const [a, b] = [anOwner(), anOwner()];
    for (const owner of [a, b]) await run((s) => s.createOwner(owner));
    const routine = (status: "active" | "paused", cron: string) => ({
      status,
      cron,
      reason: null,
    });
    const active = { ...aDataset(a.id), schedule: "0 6 * * *", scheduleState: routine("active", "0 6 * * *") };
    const other = { ...aDataset(b.id), schedule: "*/5 * * * *", scheduleState: routine("active", "*/5 * * * *") };
    const paused = { ...aDataset(a.id), scheduleState: routine("paused", "0 7 * * *") };
    const gone = { ...aDataset(b.id), schedule: "0 8 * * *", scheduleState: routine("active", "0 8 * * *") };
    for (const d of [active, other, paused, gone]) await run((s) => s.insertDataset(d as never));
    await run((s) => s.deleteDataset(b.id, gone.id));
    const listed = (await run((s) => s.listActiveRoutines())).filter((r) =>
      [active.id, other.id, paused.id, gone.id].includes(r.datasetId),
    );
    expect(listed).to.have.deep.members([
      { datasetId: active.id, ownerId: a.id, cron: "0 6 * * *" },
      { datasetId: other.id, ownerId: b.id, cron: "*/5 * * * *" },
    ]);
  });

  it("lists a dataset's runs newest first by queuedAt then id, up to the limit, and no other dataset's", async () => {
    const owner = anOwner();
    await run((s) => s.createOwner(owner));
    const dataset = aDataset(owner.id);
    const other = aDataset(owner.id);
    for (const d of [dataset, other]) await run((s) => s.insertDataset(d));
    const queued = [0, -3_600_000, 3_600_000].map((offset) => aQueuedRun(dataset, offset));
    // One run at a time per dataset: each is finished before the next is queued.
    for (const r of queued) {
      await run((s) => s.insertRun(r));
      const claimed = Option.getOrThrow(await run((s) => s.claimRun(r.id, r.queuedAt, false))).run;
      await run((s) => s.finishRun({ ...claimed, status: "failed", completedAt: r.queuedAt }, evidenceOf(claimed)));
    }
    await run((s) => s.insertRun(aQueuedRun(other)));
    const ids = (await run((s) => s.listRuns(dataset.id, 10))).map((r) => r.id);
    expect(ids).to.deep.equal([queued[2]!.id, queued[0]!.id, queued[1]!.id]);
    expect((await run((s) => s.listRuns(dataset.id, 2))).map((r) => r.id)).to.deep.equal(ids.slice(0, 2));
  });

  it("keeps a running run's trace progress, replaced as it goes, and none once the run finished", async () => {
    const { running } = await runningRun(0);
    const trace = (steps: number): RunEvidence["trace"] => ({
      ...evidenceOf(running).trace,
      steps: Array.from({ length: steps }, (_, i) => ({
        stepId: newId(),
        attemptId: running.id,
        phase: "read",
        status: "succeeded",
        startedAt: running.queuedAt,
        durationMs: i,
      })),
    });
    expect(Option.isNone(await run((s) => s.getTraceProgress(running.id)))).to.equal(true);
    await run((s) => s.saveTraceProgress(running.id, trace(1)));
    await run((s) => s.saveTraceProgress(running.id, trace(2)));
    expect(Option.getOrThrow(await run((s) => s.getTraceProgress(running.id))).steps).to.have.length(2);
    await run((s) => s.finishRun({ ...running, status: "failed", completedAt: running.queuedAt }, evidenceOf(running)));
    await run((s) => s.saveTraceProgress(running.id, trace(3)));
    expect(Option.isNone(await run((s) => s.getTraceProgress(running.id)))).to.equal(true);
  });

  it("keeps the page reads of a dataset's newest accepted run, replaced whole by the next (optional method)", async () => {
    const { dataset, running } = await runningRun(10);
    const reads = () => run((s) => s.acceptedReads?.(dataset.id as never) ?? Effect.succeed([] as AcceptedRead[]));
    const withReads = (acceptance: RunAcceptance, urls: ReadonlyArray<string>): RunAcceptance => ({
      ...acceptance,
      pageReads: {
        recipe: "recipe-1",
        pages: urls.map((url, i) => ({
          url,
          finalUrl: `${url}?final`,
          // The digest of the body, as a run reads it: stores may keep bodies by digest.
          sha256: createHash("sha256").update(`<p>${url}</p>`).digest("hex"),
          contentType: "text/html",
          etag: `"e${i}"`,
          lastModified: null,
          extraction: { records: [], entries: [{ id: "0", excerpt: `<p>${i}</p>`, truncated: false }], next: null },
          reused: false,
          body: `<p>${url}</p>`,
        })),
      },
    });
    expect(await reads()).to.deep.equal([]);
    await run((s) =>
      s.acceptRun(withReads(anAcceptance(running, 1, ["a"]), ["http://127.0.0.1/a", "http://127.0.0.1/b"])),
    );
    const first = await reads();
    // A store without the optional method answers nothing through core's fallback: every page is read in full.
    if (!(await run((s) => Effect.succeed(s.acceptedReads !== undefined)))) return expect(first).to.deep.equal([]);
    expect(first.map((r) => [r.url, r.finalUrl, r.etag, r.runId, r.recipe]).sort()).to.deep.equal([
      ["http://127.0.0.1/a", "http://127.0.0.1/a?final", '"e0"', running.id, "recipe-1"],
      ["http://127.0.0.1/b", "http://127.0.0.1/b?final", '"e1"', running.id, "recipe-1"],
    ]);
    const a = first.find((r) => r.url === "http://127.0.0.1/a");
    expect(a?.extraction?.entries).to.deep.equal([{ id: "0", excerpt: "<p>0</p>", truncated: false }]);
    expect(a?.body === null || a?.body === "<p>http://127.0.0.1/a</p>", String(a?.body)).to.equal(true);
    const next = aQueuedRun({ ...aDataset(running.ownerId), id: dataset.id as never }, 60_000);
    await run((s) => s.insertRun(next));
    const claimed = Option.getOrThrow(await run((s) => s.claimRun(next.id, next.queuedAt, false))).run;
    const again = anAcceptance(claimed, 1, []);
    await run((s) => s.acceptRun(withReads({ ...again, rows: [], revisions: [] }, ["http://127.0.0.1/c"])));
    expect((await reads()).map((r) => r.url)).to.deep.equal(["http://127.0.0.1/c"]);
  });

  it("counts the runs waiting for a worker across owners, and the oldest one's queue time (optional method)", async () => {
    const queued = () => run((s) => s.queuedRuns?.() ?? Effect.succeed(null));
    const before = await queued();
    if (!(await run((s) => Effect.succeed(s.queuedRuns !== undefined)))) return expect(before).to.equal(null);
    const [a, b] = [anOwner(), anOwner()];
    for (const owner of [a, b]) await run((s) => s.createOwner(owner));
    const [first, second] = [aDataset(a.id), aDataset(b.id)];
    for (const d of [first, second]) await run((s) => s.insertDataset(d));
    // Queued a year before the fixtures' runs: the oldest of all.
    const oldest = aQueuedRun(first, -365 * 24 * 3_600_000);
    const later = aQueuedRun(second);
    for (const r of [oldest, later]) await run((s) => s.insertRun(r));
    const waiting = (await queued())!;
    expect(waiting.count).to.equal(before!.count + 2);
    expect(waiting.oldestQueuedAt).to.equal(oldest.queuedAt);
    await run((s) => s.claimRun(oldest.id, oldest.queuedAt, false));
    expect((await queued())!.count).to.equal(before!.count + 1);
  });

  it("reports its connection pool as an operator watches it (optional method: only a store with a pool)", async () => {
    const pool = await run((s) => Effect.succeed(s.connectionPool));
    if (pool === undefined) {
      console.log(`[conformance] ${name}: connection pool case NOT RUN — the store has no connection pool.`);
      return;
    }
    await Promise.all(Array.from({ length: 4 }, () => run((s) => s.findOwnerByName(`nobody-${newId()}`))));
    const state = pool();
    for (const count of Object.values(state))
      expect(Number.isInteger(count) && count >= 0, String(count)).to.equal(true);
    expect(state.open, "a connection stays open after the reads").to.be.at.least(1);
    // Nothing is in flight between cases: every open connection is idle, no request waits.
    expect(state).to.deep.include({ idle: state.open, waiting: 0 });
  });
};
