import { newId, type ObservationId, type OwnerId, type RunRecord, type SourceObservation } from "@gleaner/core";
import { expect } from "chai";
import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import { it } from "../runner.js";
import type { StoreHarness } from "./harness.js";
import { anAcceptance, aQueuedRun, withPageRead } from "./fixtures.js";

const anObservation = (running: RunRecord): SourceObservation => ({
  id: newId<ObservationId>(),
  sourceUrl: "http://127.0.0.1/page-1",
  observedAt: running.queuedAt,
  contentDigest: `sha256:${"0".repeat(64)}`,
  entries: [{ id: "0:title", excerpt: "a", truncated: false }],
  datasetId: running.datasetId,
  runId: running.id,
  pageKey: "http://127.0.0.1/page-1",
  method: "deterministic",
});

/** Storage.deleteDataset, inside storeContract: everything kept for the dataset goes, the ledger stays. */
export const deleteStoreCases = ({ run, runningRun, credits: creditsOf }: StoreHarness): void => {
  it("deletes a dataset with its rows, history, observations, runs, evidence, page reads, held outcome and scoped webhooks; keeps the ledger", async () => {
    const { ownerId, dataset, running } = await runningRun(10);
    const webhook = {
      id: newId(),
      ownerId,
      url: "https://hooks.example/scoped",
      events: ["run.finished" as const, "run.held" as const],
      datasetId: dataset.id as never,
      secret: "whsec_scoped",
      createdAt: running.queuedAt,
    };
    await run((s) => s.insertWebhook(webhook));
    const observation = anObservation(running);
    const acceptance = { ...withPageRead(anAcceptance(running, 2, ["a", "b"])), observations: [observation] };
    expect((await run((s) => s.acceptRun(acceptance)))._tag).to.equal("Accepted");
    const stored = Option.getOrThrow(await run((s) => s.getDataset(ownerId, dataset.id as never))).record;
    // A second run held for credits (9 pages, 8 left): its outcome is kept for the dataset.
    const second = aQueuedRun(stored, 30_000);
    await run((s) => s.insertRun(second));
    const claimed = Option.getOrThrow(await run((s) => s.claimRun(second.id, second.queuedAt, false))).run;
    expect((await run((s) => s.acceptRun(anAcceptance(claimed, 9, ["c"]))))._tag).to.equal("Held");
    const queued = aQueuedRun(stored, 60_000);
    await run((s) => s.insertRun(queued));
    const reads = () => run((s) => s.acceptedReads?.(dataset.id as never) ?? Effect.succeed([]));
    const pending = async () =>
      (await run((s) => s.pendingWebhookDatasets())).filter((p) => p.datasetId === dataset.id).length;
    // What the deletion must remove is there before it.
    // acceptedReads is optional (speed only): a store without it keeps no reads to remove.
    const keepsReads = await run((s) => Effect.succeed(s.acceptedReads !== undefined));
    expect(await reads()).to.have.length(keepsReads ? 1 : 0);
    expect(Option.isSome(await run((s) => s.heldOutcome(dataset.id as never)))).to.equal(true);
    expect(await pending()).to.equal(1);

    expect(await run((s) => s.deleteDataset(newId<OwnerId>(), dataset.id as never))).to.equal(false);
    expect(await run((s) => s.deleteDataset(ownerId, dataset.id as never))).to.equal(true);

    expect(Option.isNone(await run((s) => s.getDataset(ownerId, dataset.id as never)))).to.equal(true);
    expect(await run((s) => s.listDatasets(ownerId, { after: null, limit: 10 }))).to.deep.equal([]);
    expect(await run((s) => s.loadRows(dataset.id as never))).to.deep.equal([]);
    const window = { after: 0, through: 100, limit: 10, rowId: null, fieldId: null };
    expect(await run((s) => s.listRevisions(dataset.id as never, window))).to.deep.equal([]);
    expect(await run((s) => s.getObservations([observation.id]))).to.deep.equal([]);
    expect(await reads()).to.deep.equal([]);
    expect(Option.isNone(await run((s) => s.heldOutcome(dataset.id as never)))).to.equal(true);
    expect(await pending(), "webhook messages of the dataset").to.equal(0);
    for (const runId of [running.id, claimed.id, queued.id]) {
      expect(Option.isNone(await run((s) => s.getRun(ownerId, runId)))).to.equal(true);
      expect(Option.isNone(await run((s) => s.getRunEvidence(runId)))).to.equal(true);
    }
    expect(await run((s) => s.listWebhooks(ownerId))).to.deep.equal([]);
    // The credits charged stay charged: the ledger keeps its entries.
    const credits = await creditsOf();
    expect(await Effect.runPromise(credits.balance(ownerId))).to.equal(8);
    const ledger = await Effect.runPromise(credits.ledger(ownerId, "2000-01-01T00:00:00.000Z"));
    expect(ledger.map((e) => e.kind).sort()).to.deep.equal(["charge", "grant"]);
    // Deleting again finds nothing; a run accepting into the deleted dataset writes nothing.
    expect(await run((s) => s.deleteDataset(ownerId, dataset.id as never))).to.equal(false);
    expect((await run((s) => s.acceptRun(anAcceptance(queued, 1, ["c"]))))._tag).to.equal("AlreadyFinished");
    expect(await run((s) => s.loadRows(dataset.id as never))).to.deep.equal([]);
    expect(await Effect.runPromise(credits.balance(ownerId))).to.equal(8);
    expect(await run((s) => s.deleteDataset(ownerId, "not-a-uuid" as never))).to.equal(false);
  });
};
