import { anAcceptance, aQueuedRun, seedOwnerWithDataset } from "@gleaner/conformance";
import { getArtifact, getTrace, listArtifacts, type RunArtifact, Storage } from "@gleaner/core";
import { expect } from "chai";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as ManagedRuntime from "effect/ManagedRuntime";
import * as Option from "effect/Option";
import * as TestClock from "effect/TestClock";
import * as TestContext from "effect/TestContext";
import { MemoryStoreLive } from "../src/index.js";

// Core's rules for reading a finished run (endpoints 12, 13 and 15), which read only the trace, the
// artifacts without bodies, or one artifact (decision 0042): SPEC.md's 30-day artifact retention and
// the index's 200 entries, applied by Effect's Clock when the run is read. The memory store also
// prunes artifacts past retention, but only when a run of the dataset finishes: each run here is
// accepted at `now` and read a day later, so what ages out in between is core's to leave out.

const day = 24 * 60 * 60 * 1000;
const now = Date.parse("2026-11-25T12:00:00.000Z");
const iso = (ms: number) => new Date(ms).toISOString();

describe("reading a finished run: trace, artifacts index, one artifact", () => {
  const clock = Layer.effectDiscard(TestClock.setTime(now)).pipe(Layer.provideMerge(TestContext.TestContext));
  const runtime = ManagedRuntime.make(Layer.merge(MemoryStoreLive, clock));
  after(() => runtime.dispose());
  const run = <A, E>(effect: Effect.Effect<A, E, Storage>) => runtime.runPromise(effect);
  const clockAt = (ms: number) => runtime.runPromise(TestClock.setTime(ms));

  /** An accepted run whose evidence holds `artifacts`. */
  const acceptedWith = async (artifacts: (runId: string) => ReadonlyArray<RunArtifact>) => {
    await clockAt(now);
    const { owner, dataset } = await run(seedOwnerWithDataset(100));
    const queued = aQueuedRun(dataset);
    await run(Effect.flatMap(Storage, (s) => s.insertRun(queued)));
    const running = Option.getOrThrow(
      await run(Effect.flatMap(Storage, (s) => s.claimRun(queued.id, queued.queuedAt, false))),
    ).run;
    const base = anAcceptance(running, 1, []);
    const acceptance = { ...base, evidence: { ...base.evidence, artifacts: artifacts(running.id) } };
    const outcome = await run(Effect.flatMap(Storage, (s) => s.acceptRun(acceptance)));
    expect(outcome._tag).to.equal("Accepted");
    await clockAt(now + day);
    return { owner, runId: running.id, evidence: acceptance.evidence };
  };

  const page = (runId: string, n: number, createdAt: number): RunArtifact => ({
    id: `page-${n}`,
    runId: runId as RunArtifact["runId"],
    kind: "page",
    url: `http://127.0.0.1/page-${n}`,
    contentType: "text/html",
    sha256: String(n).padStart(64, "0"),
    size: 9,
    truncated: false,
    body: `<p>${n}</p>`,
    createdAt: iso(createdAt),
  });

  it("lists the first 200 artifacts kept 30 days, without bodies, and says the index is truncated", async () => {
    // Read a day later: one artifact past retention by then, then 201 within it (the first exactly 30 days old).
    const { owner, runId } = await acceptedWith((id) => [
      page(id, 0, now - 29 * day - 1),
      ...Array.from({ length: 201 }, (_, n) => page(id, n + 1, now - 29 * day + n)),
    ]);
    const index = await run(listArtifacts(owner.id, runId));
    expect(index).to.include({ runId, recipe: null, truncated: true });
    expect(index.artifacts.map((a) => a.id)).to.deep.equal(Array.from({ length: 200 }, (_, n) => `page-${n + 1}`));
    expect(index.artifacts.every((a) => !("body" in a))).to.equal(true);
  });

  it("answers one kept artifact with its body, and NotFound for one past retention or unknown", async () => {
    // page-1 is 29.5 days old when accepted (kept by the store), 30.5 when read.
    const { owner, runId } = await acceptedWith((id) => [page(id, 1, now - 29.5 * day), page(id, 2, now - day)]);
    const { artifact } = await run(getArtifact(owner.id, runId, "page-2"));
    expect(artifact).to.include({ id: "page-2", body: "<p>2</p>" });
    for (const id of ["page-1", "page-3"]) {
      const failure = await run(Effect.flip(getArtifact(owner.id, runId, id)));
      expect(failure).to.include({ _tag: "NotFound" });
    }
    // Another owner's run is not found at all.
    const { owner: other } = await run(seedOwnerWithDataset(0));
    expect(await run(Effect.flip(getArtifact(other.id, runId, "page-2")))).to.include({ _tag: "NotFound" });
  });

  it("answers a finished run's trace as stored, with the run's status", async () => {
    const { owner, runId, evidence } = await acceptedWith((id) => [page(id, 1, now)]);
    const { trace } = await run(getTrace(owner.id, runId));
    expect(trace).to.deep.equal({ ...evidence.trace, status: "succeeded" });
  });
});
