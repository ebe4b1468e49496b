import { aQueuedRun, evidenceOf, seedOwnerWithDataset } from "@gleaner/conformance";
import { RetentionLive, RetentionPolicy, type RunRecord, Storage } from "@gleaner/core";
import { expect } from "chai";
import * as Layer from "effect/Layer";
import * as ManagedRuntime from "effect/ManagedRuntime";
import * as Option from "effect/Option";
import { MemoryStoreLive } from "../src/index.js";

const dayMs = 24 * 60 * 60 * 1000;

/** RetentionLive, the prune every serve and worker process runs: at start, then every interval. */
describe("the retention prune a process runs (RetentionLive)", () => {
  it("prunes at start and again each interval, by the policy's days, and stops with its process", async () => {
    const store = ManagedRuntime.make(MemoryStoreLive);
    const storage = await store.runPromise(Storage);
    const { dataset } = await store.runPromise(seedOwnerWithDataset(10));
    /** A failed run with its record, finished at `completedAt`. */
    const finished = async (completedAt: string): Promise<RunRecord> => {
      const queued = aQueuedRun(dataset, 0);
      await store.runPromise(storage.insertRun(queued));
      const running = Option.getOrThrow(await store.runPromise(storage.claimRun(queued.id, queued.queuedAt, false)));
      const failed = { ...running.run, status: "failed" as const, error: "x", completedAt };
      return store.runPromise(storage.finishRun(failed, evidenceOf(running.run)));
    };
    const hasRecord = async (run: RunRecord) => Option.isSome(await store.runPromise(storage.getRunEvidence(run.id)));
    const eventually = async (what: string, holds: () => Promise<boolean>) => {
      for (let waited = 0; !(await holds()); waited += 20) {
        if (waited > 2_000) throw new Error(`${what}: not within 2 s`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };

    const old = await finished(new Date(Date.now() - 8 * dayMs).toISOString());
    const recent = await finished(new Date(Date.now() - 6 * dayMs).toISOString());
    const process = ManagedRuntime.make(
      RetentionLive(100).pipe(
        Layer.provide(Layer.succeed(Storage, storage)),
        Layer.provide(Layer.succeed(RetentionPolicy, { days: 7 })),
      ),
    );
    await process.runtime();
    await eventually("the record past 7 days goes at start", async () => !(await hasRecord(old)));
    expect(await hasRecord(recent)).to.equal(true);

    // A record past retention after the start goes with the next prune, an interval later.
    const later = await finished(new Date(Date.now() - 9 * dayMs).toISOString());
    expect(await hasRecord(later)).to.equal(true);
    await eventually("the next prune takes it", async () => !(await hasRecord(later)));
    expect(await hasRecord(recent)).to.equal(true);

    // Its process gone, nothing prunes any more.
    await process.dispose();
    const afterwards = await finished(new Date(Date.now() - 9 * dayMs).toISOString());
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await hasRecord(afterwards)).to.equal(true);
    await store.dispose();
  });
});
