import { pruneRunRecords, Storage } from "@gleaner/core";
import { expect } from "chai";
import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import * as TestClock from "effect/TestClock";
import * as TestContext from "effect/TestContext";
import { it } from "../runner.js";
import type { StoreHarness } from "./harness.js";
import { anAcceptance, withPageRead } from "./fixtures.js";

const dayMs = 24 * 60 * 60 * 1000;

/**
 * Storage.pruneRunRecords through core's prune, on Effect's TestClock (30 days by default), inside
 * storeContract: a run's record goes once it is past retention; what the data needs stays.
 */
export const retentionStoreCases = ({ run, runningRun }: StoreHarness): void => {
  /** Core's prune with the clock at `at` (ms); answers how many records went. */
  const pruneAt = (at: number) =>
    run((storage) =>
      Effect.gen(function* () {
        yield* TestClock.setTime(at);
        return yield* pruneRunRecords;
      }).pipe(Effect.provideService(Storage, storage), Effect.provide(TestContext.TestContext)),
    );

  it("removes a run's record once past retention, keeping the run, its rows, page reads and a held run's record", async () => {
    const { ownerId, dataset, running } = await runningRun(10);
    const acceptance = withPageRead(anAcceptance(running, 1, ["a"]));
    const [page] = acceptance.evidence.artifacts;
    expect((await run((s) => s.acceptRun(acceptance)))._tag).to.equal("Accepted");
    const finished = Date.parse(Option.getOrThrow(await run((s) => s.getRun(ownerId, running.id))).completedAt!);
    const held = await runningRun(0);
    expect((await run((s) => s.acceptRun(anAcceptance(held.running, 3, ["b"]))))._tag).to.equal("Held");
    const reads = () => run((s) => s.acceptedReads?.(dataset.id as never) ?? Effect.succeed([]));
    const readsBefore = await reads();
    expect(readsBefore.map((r) => r.body)).to.deep.equal([page!.body]);

    // An hour short of 30 days: nothing of these runs goes.
    await pruneAt(finished + 30 * dayMs - 3_600_000);
    expect(Option.isSome(await run((s) => s.getRunEvidence(running.id)))).to.equal(true);

    // Past 30 days: the record goes, the run and what the data needs stay.
    expect(await pruneAt(finished + 31 * dayMs)).to.be.at.least(1);
    expect(Option.isNone(await run((s) => s.getRunEvidence(running.id)))).to.equal(true);
    expect(Option.isNone(await run((s) => s.getRunTrace(running.id)))).to.equal(true);
    expect(Option.isNone(await run((s) => s.listRunArtifacts(running.id)))).to.equal(true);
    expect(Option.getOrThrow(await run((s) => s.getRun(ownerId, running.id))).status).to.equal("succeeded");
    expect(await run((s) => s.loadRows(dataset.id as never))).to.have.length(1);
    // The kept read, its body included, is the next run's to reuse.
    expect(await reads()).to.deep.equal(readsBefore);
    // The held run may still be accepted: its record stays.
    expect(Option.isSome(await run((s) => s.getRunEvidence(held.running.id)))).to.equal(true);
    // A second prune finds nothing more of these.
    await pruneAt(finished + 31 * dayMs);
    expect(Option.isSome(await run((s) => s.heldOutcome(held.dataset.id as never)))).to.equal(true);
  });
};
