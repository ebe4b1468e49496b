import { Clock, Effect } from "effect";
import { Storage } from "../ports/storage.js";
import type { AcceptanceOutcome, RunPlanRecord, RunRecord } from "../run-domain.js";
import { observationsToStore } from "../rules/cited-observations.js";
import { newId } from "../schema/ids.js";
import type { CheckResult } from "../schema/run.js";
import { observePages, runEvidence } from "./evidence.js";
import { iso, type Pinned, traceOf } from "./phases.js";
import type { ReadOutcome } from "./read.js";
import { reconcilePhase } from "./reconcile.js";
import type { TraceRecorder } from "./trace.js";

const maxAcceptAttempts = 5;

export interface AcceptInput {
  readonly run: RunRecord;
  readonly pinned: Pinned;
  readonly read: ReadOutcome;
  readonly checks: ReadonlyArray<CheckResult>;
  readonly plan: RunPlanRecord;
  readonly recorder: TraceRecorder;
}

/**
 * accept: reconcile against the current rows and hand the store one acceptance; recompute when an
 * edit slipped in between (RowsChanged). The accept step is `succeeded` in the evidence stored
 * with an accepted run and `failed` in the evidence stored with a held one. The step spans
 * reconciliation and the store's write: the store stamps `completedAt` and the step's end while it
 * writes (`stampAcceptance`), in the same atomic write.
 * Returns the store's outcome, or "exhausted" when rows kept changing.
 */
export const acceptPhase = Effect.fn("run.accept")(function* (input: AcceptInput) {
  const storage = yield* Storage;
  const { run, pinned, read, checks, recorder } = input;
  const pages = new Set(read.pages.map((p) => p.page.finalUrl)).size;
  for (let attempt = 1; attempt <= maxAcceptAttempts; attempt++) {
    const started = yield* Clock.currentTimeMillis;
    const completedAt = iso(started);
    const observations = observePages(read, run.datasetId, run.id, completedAt);
    const observationByPage = new Map(observations.map((o) => [o.sourceUrl, o.id]));
    const current = yield* storage.loadRows(run.datasetId);
    const reconciliation = yield* reconcilePhase({
      datasetId: run.datasetId,
      runId: run.id,
      schemaVersion: pinned.schemaVersion,
      columns: pinned.columns,
      current,
      records: read.records,
      observationByPage,
      now: completedAt,
    });
    const plan: RunPlanRecord = { ...input.plan, reconciliation: reconciliation.record, pagesToCharge: pages };
    const durationMs = Math.max(0, Math.round((yield* Clock.currentTimeMillis) - started));
    const step = { phase: "accept" as const, startedAt: completedAt, durationMs };
    const evidence = runEvidence(
      read,
      run.id,
      completedAt,
      traceOf(run, recorder, completedAt, { ...step, status: "succeeded" }),
      plan,
    );
    // completedAt here is provisional: the store stamps the run and the accept step while it writes.
    const outcome: AcceptanceOutcome = yield* storage.acceptRun({
      run: {
        ...run,
        status: "succeeded",
        checks,
        rowDeltas: reconciliation.rowDeltas,
        error: null,
        completedAt,
        chargedPages: pages,
      },
      heldRun: {
        ...run,
        status: "held",
        checks,
        error: `Every check passed, but the owner cannot pay for ${pages} page(s); nothing was written.`,
        completedAt,
      },
      rows: reconciliation.rows,
      revisions: reconciliation.revisions,
      observations: observationsToStore(observations, [
        ...reconciliation.rows.map(({ row }) => row),
        ...reconciliation.revisions,
      ]),
      charge: { ownerId: run.ownerId, pages, entryId: newId() },
      evidence,
      heldEvidence: { ...evidence, trace: traceOf(run, recorder, completedAt, { ...step, status: "failed" }) },
    });
    if (outcome._tag !== "RowsChanged") {
      const held = outcome._tag === "Held";
      yield* Effect.logInfo(held ? "run held" : "run accepted").pipe(
        Effect.annotateLogs({
          outcome: outcome._tag,
          ...reconciliation.rowDeltas,
          pages,
          creditsCharged: held ? 0 : pages,
        }),
      );
      return outcome;
    }
  }
  return "exhausted" as const;
});
