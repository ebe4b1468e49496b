import { aDataset, anAcceptance, aQueuedRun, evidenceOf, seedOwnerWithDataset } from "@gleaner/conformance";
import { type RunRecord, Storage } from "@gleaner/core";
import { expect } from "chai";
import type * as Effect from "effect/Effect";
import * as ManagedRuntime from "effect/ManagedRuntime";
import * as Option from "effect/Option";
import { MemoryStoreLive } from "../src/index.js";
import { artifactRunsPerDataset, evidenceRunsPerDataset } from "../src/retention.js";

const day = 24 * 60 * 60 * 1000;

describe("memory store: evidence retention", () => {
  it("keeps evidence of a bounded number of runs per dataset, artifacts of fewer, and none of superseded failures", async () => {
    const runtime = ManagedRuntime.make(MemoryStoreLive);
    const storage = await runtime.runPromise(Storage);
    const run = <A, E>(effect: Effect.Effect<A, E>) => runtime.runPromise(effect);
    const { owner, dataset } = await runtime.runPromise(seedOwnerWithDataset(1_000));
    const other = aDataset(owner.id);
    await run(storage.insertDataset(other));

    /** Runs `dataset`'s n-th run: every third one fails, the others are accepted. */
    const finishRun = async (target: typeof dataset, n: number): Promise<RunRecord> => {
      const queued = aQueuedRun(target, n * 60_000);
      await run(storage.insertRun(queued));
      const running = Option.getOrThrow(await run(storage.claimRun(queued.id, queued.queuedAt, false))).run;
      if (n % 3 === 2) {
        const failed = { ...running, status: "failed" as const, error: "x", completedAt: queued.queuedAt };
        return run(storage.finishRun(failed, evidenceOf(running)));
      }
      const outcome = await run(storage.acceptRun(anAcceptance(running, 1, [`${target.id}-${n}`])));
      expect(outcome._tag).to.equal("Accepted");
      return running;
    };

    const otherRun = await finishRun(other, 0);
    const runs: RunRecord[] = [];
    for (let n = 0; n < 60; n++) runs.push(await finishRun(dataset, n));
    const newestFirst = runs.reverse();
    const kept = await Promise.all(newestFirst.map((r) => run(storage.getRunEvidence(r.id))));
    const withEvidence = kept.filter(Option.isSome);
    expect(withEvidence).to.have.length(evidenceRunsPerDataset);
    expect(kept.slice(0, evidenceRunsPerDataset).every(Option.isSome)).to.equal(true);
    const artifacts = kept.map((e) => Option.match(e, { onNone: () => 0, onSome: (x) => x.artifacts.length }));
    // The newest run keeps its pages; older failed runs none; nothing past the artifact window.
    expect(artifacts[0]).to.equal(1);
    for (const [i, r] of newestFirst.entries()) {
      const failedOlder = i > 0 && (runs.length - 1 - i) % 3 === 2;
      const expected = i < artifactRunsPerDataset && !failedOlder ? 1 : 0;
      expect(artifacts[i], `run ${i} (newest first), ${r.id}`).to.equal(expected);
    }
    // Another dataset's evidence is untouched by this one's runs.
    const untouched = Option.getOrThrow(await run(storage.getRunEvidence(otherRun.id)));
    expect(untouched.artifacts).to.have.length(1);

    // A run finishing 31 days after the pages were read drops them (SPEC: artifacts kept 30 days).
    const late = aQueuedRun(dataset, 31 * day);
    await run(storage.insertRun(late));
    const running = Option.getOrThrow(await run(storage.claimRun(late.id, late.queuedAt, false))).run;
    await run(
      storage.finishRun({ ...running, status: "failed", error: "x", completedAt: late.queuedAt }, evidenceOf(running)),
    );
    const previous = Option.getOrThrow(await run(storage.getRunEvidence(newestFirst[0]!.id)));
    expect(previous.artifacts).to.deep.equal([]);
    expect(previous.trace.runId).to.equal(newestFirst[0]!.id);
    await runtime.dispose();
  });
});
