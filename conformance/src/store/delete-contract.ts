import { newId, type ObservationId, type OwnerId, type RunRecord, type SourceObservation } from "@gleaner/core";
import { expect } from "chai";
import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import { it } from "../runner.js";
import type { StoreHarness } from "./harness.js";
import { anAcceptance, aQueuedRun } from "./fixtures.js";

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
  it("deletes a dataset with its rows, history, observations, runs, evidence and scoped webhooks; keeps the ledger", async () => {
    const { ownerId, dataset, running } = await runningRun(10);
    const observation = anObservation(running);
    const acceptance = { ...anAcceptance(running, 2, ["a", "b"]), observations: [observation] };
    expect((await run((s) => s.acceptRun(acceptance)))._tag).to.equal("Accepted");
    const webhook = {
      id: newId(),
      ownerId,
      url: "https://hooks.example/scoped",
      events: ["run.finished" as const],
      datasetId: dataset.id as never,
      secret: "whsec_scoped",
      createdAt: running.queuedAt,
    };
    await run((s) => s.insertWebhook(webhook));
    const stored = await run((s) => s.getDataset(ownerId, dataset.id as never));
    const queued = aQueuedRun(Option.getOrThrow(stored).record, 60_000);
    await run((s) => s.insertRun(queued));

    expect(await run((s) => s.deleteDataset(newId<OwnerId>(), dataset.id as never))).to.equal(false);
    expect(await run((s) => s.deleteDataset(ownerId, dataset.id as never))).to.equal(true);

    expect(Option.isNone(await run((s) => s.getDataset(ownerId, dataset.id as never)))).to.equal(true);
    expect(await run((s) => s.listDatasets(ownerId, { after: null, limit: 10 }))).to.deep.equal([]);
    expect(await run((s) => s.loadRows(dataset.id as never))).to.deep.equal([]);
    const window = { after: 0, through: 100, limit: 10, rowId: null, fieldId: null };
    expect(await run((s) => s.listRevisions(dataset.id as never, window))).to.deep.equal([]);
    expect(await run((s) => s.getObservations([observation.id]))).to.deep.equal([]);
    for (const runId of [running.id, queued.id]) {
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
