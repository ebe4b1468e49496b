import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import { reconcile } from "../engine/reconcile.js";
import { announceRunWebhooks } from "../engine/webhook-worker.js";
import { conflicts, InsufficientCredits } from "../errors.js";
import { fromHeldRecord, rowsDigest } from "../held-outcome.js";
import { Storage } from "../ports/storage.js";
import { type RunEvidence, toRun } from "../run-domain.js";
import { observationsToStore } from "../rules/cited-observations.js";
import { type DatasetId, newId, type OwnerId, type RunId } from "../schema/ids.js";
import { nowIso } from "../time.js";
import { findDataset } from "./find-dataset.js";
import { findRun } from "./runs.js";

const { runStale: stale, runNotHeld: notHeld } = conflicts;

/** The trace as stored with an accepted run: the same steps, its final accept step now `succeeded`. */
const acceptedTrace = (trace: RunEvidence["trace"]): RunEvidence["trace"] => {
  const last = trace.steps.at(-1);
  if (last?.phase !== "accept") return trace;
  return { ...trace, steps: [...trace.steps.slice(0, -1), { ...last, status: "succeeded" }] };
};

/**
 * POST /v1/runs/{runId}/accept (decision 0040): accepts a held run's kept outcome now, the same
 * acceptance as a run's (one transaction; charged once; rows, revisions, observations, change feed,
 * webhooks), reconciled against the rows it was compared with. 409 `run_not_held` unless the run is
 * held; 409 `run_stale` when the dataset's rows or columns changed since, or a later run was held or
 * accepted; 402 when the balance is short. The run becomes `succeeded`, completed at the acceptance.
 */
export const acceptHeldRun = (ownerId: OwnerId, runId: string) =>
  Effect.gen(function* () {
    const storage = yield* Storage;
    const run = yield* findRun(ownerId, runId);
    if (run.status !== "held") return yield* Effect.fail(notHeld(run.status));
    const kept = Option.filter(yield* storage.heldOutcome(run.datasetId), (o) => o.runId === run.id);
    if (Option.isNone(kept)) {
      return yield* Effect.fail(
        stale("This run's outcome is not kept: it was held before reading, or a later run was held."),
      );
    }
    const outcome = kept.value;
    const dataset = yield* findDataset(ownerId, run.datasetId);
    if (dataset.record.schemaVersion !== outcome.schemaVersion) {
      return yield* Effect.fail(stale("The dataset's columns changed since this run read the site."));
    }
    const current = yield* storage.loadRows(run.datasetId as DatasetId);
    if (rowsDigest(current) !== outcome.rowsDigest) {
      return yield* Effect.fail(stale("The dataset's rows changed since this run read them (an edit or a later run)."));
    }
    const evidence = yield* storage.getRunEvidence(run.id as RunId);
    if (Option.isNone(evidence)) return yield* Effect.fail(stale("This run's evidence is no longer kept."));
    const completedAt = yield* nowIso;
    const reconciliation = reconcile({
      datasetId: run.datasetId,
      runId: run.id,
      schemaVersion: outcome.schemaVersion,
      columns: outcome.columns,
      current,
      records: outcome.records.map(fromHeldRecord),
      observationByPage: new Map(outcome.observations.map((o) => [o.sourceUrl, o.id])),
      now: completedAt,
    });
    const plan = evidence.value.plan;
    const answer = yield* storage.acceptRun({
      run: {
        ...run,
        status: "succeeded",
        rowDeltas: reconciliation.rowDeltas,
        error: null,
        completedAt,
        chargedPages: outcome.pages,
      },
      heldRun: run,
      heldEvidence: evidence.value,
      heldOutcome: () => outcome,
      acceptingHeld: true,
      rows: reconciliation.rows,
      revisions: reconciliation.revisions,
      observations: observationsToStore(outcome.observations, reconciliation.revisions),
      charge: { ownerId, pages: outcome.pages, entryId: newId() },
      evidence: {
        ...evidence.value,
        trace: acceptedTrace(evidence.value.trace),
        plan: plan && {
          ...plan,
          reconciliation: reconciliation.record,
          ...(plan.drift ? { drift: { ...plan.drift, accepted: true } } : {}),
        },
      },
    });
    switch (answer._tag) {
      case "Accepted":
        // Its run.finished and rows.changed go out now, as a worker's accepted run's do, not at the next poll.
        yield* announceRunWebhooks(run.datasetId);
        yield* Effect.logInfo("held run accepted").pipe(
          Effect.annotateLogs({
            runId: run.id,
            datasetId: run.datasetId,
            heldFor: outcome.reason,
            pages: outcome.pages,
          }),
        );
        return { run: toRun(answer.run) };
      case "Unpaid":
        return yield* Effect.fail(new InsufficientCredits({ balance: answer.balance, required: outcome.pages }));
      case "RowsChanged":
        return yield* Effect.fail(
          stale("The dataset's rows changed while the run was accepted, or a later run started."),
        );
      default:
        return yield* Effect.fail(notHeld(answer.run.status));
    }
  });
