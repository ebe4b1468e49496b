import * as Clock from "effect/Clock";
import * as Effect from "effect/Effect";
import { rowsDigest, toHeldRecord } from "../held-outcome.js";
import type { PageReadsToKeep } from "../page-reads.js";
import { Storage } from "../ports/storage.js";
import type { AcceptanceOutcome, RunEvidence, RunPlanRecord, RunRecord } from "../run-domain.js";
import { observationsToStore } from "../rules/cited-observations.js";
import { DriftPolicy, driftMessage, findDrift } from "../rules/drift.js";
import type { DatasetColumn } from "../schema/column.js";
import { newId } from "../schema/ids.js";
import type { SourceObservation } from "../schema/row.js";
import type { CheckResult, RunTraceStep } from "../schema/run.js";
import { isoAt } from "../time.js";
import type { ExtractedRecord } from "./extract.js";
import { reconcilePhase } from "./reconcile.js";

const maxAcceptAttempts = 5;

/** The accept step that ends the stored trace: `succeeded` when accepted, `failed` when held. */
export type AcceptStep = Omit<RunTraceStep, "stepId" | "attemptId">;

/**
 * What both run kinds hand the accept phase. What differs between a deterministic and a research
 * run is passed in: how its pages become observations (parsed pages or model pages), its evidence
 * and its trace (a research trace carries the harness version).
 */
export interface AcceptInput {
  readonly run: RunRecord;
  readonly schemaVersion: number;
  readonly columns: ReadonlyArray<DatasetColumn>;
  readonly records: ReadonlyArray<ExtractedRecord>;
  readonly checks: ReadonlyArray<CheckResult>;
  readonly plan: RunPlanRecord;
  /** Distinct pages the run read and checked: what it is charged, one credit each. */
  readonly pages: number;
  /** One observation per page read, observed at `completedAt`. */
  readonly observe: (completedAt: string) => ReadonlyArray<SourceObservation>;
  /** The trace as stored, ending with the accept step. */
  readonly trace: (completedAt: string, step: AcceptStep) => RunEvidence["trace"];
  /** The evidence stored with the run, around the given trace and plan. */
  readonly evidence: (completedAt: string, trace: RunEvidence["trace"], plan: RunPlanRecord) => RunEvidence;
  /** Deterministic runs: the pages read, kept by the store for the next run to reuse (decision 0042). */
  readonly pageReads?: PageReadsToKeep;
  /** Deterministic runs: the page bodies the store served the run with its kept reads (decision 0042). */
  readonly bodiesStored?: ReadonlyArray<string>;
}

/**
 * accept, for every kind of run: reconcile against the current rows, apply the drift rule, and hand
 * the store one acceptance (Storage.acceptRun: rows, revisions, observations, one credit per distinct
 * page; held for drift, or when unpaid, with what it would write kept for a later accept); recompute
 * when an edit slipped in between (RowsChanged). The plan records the reconciliation and any drift;
 * the accept step is `succeeded` in the evidence stored with an accepted run and `failed` in the
 * evidence stored with a held one. The step spans reconciliation and the store's write: the store
 * stamps `completedAt` and the step's end while it writes (`stampAcceptance`), in the same atomic write.
 * Returns the store's outcome, or "exhausted" when rows kept changing.
 */
export const acceptPhase = Effect.fn("run.accept")(function* (input: AcceptInput) {
  const storage = yield* Storage;
  const policy = yield* DriftPolicy;
  const { run, checks, pages } = input;
  for (let attempt = 1; attempt <= maxAcceptAttempts; attempt++) {
    const started = yield* Clock.currentTimeMillis;
    const completedAt = isoAt(started);
    const observations = input.observe(completedAt);
    const current = yield* storage.loadRows(run.datasetId);
    const reconciliation = yield* reconcilePhase({
      datasetId: run.datasetId,
      runId: run.id,
      schemaVersion: input.schemaVersion,
      columns: input.columns,
      current,
      records: input.records,
      observationByPage: new Map(observations.map((o) => [o.sourceUrl, o.id])),
      now: completedAt,
    });
    const found = policy.enabled
      ? findDrift({ columns: input.columns, current, records: input.records }, policy.thresholds)
      : null;
    const drift = found !== null && found.findings.length > 0 ? { ...found, accepted: run.acceptDrift === true } : null;
    const holdForDrift = drift !== null && !drift.accepted;
    const plan: RunPlanRecord = {
      ...input.plan,
      reconciliation: reconciliation.record,
      pagesToCharge: pages,
      ...(drift ? { drift } : {}),
    };
    const durationMs = Math.max(0, Math.round((yield* Clock.currentTimeMillis) - started));
    const step = { phase: "accept" as const, startedAt: completedAt, durationMs };
    const evidence = input.evidence(completedAt, input.trace(completedAt, { ...step, status: "succeeded" }), plan);
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
        error: holdForDrift
          ? driftMessage(drift)
          : `Every check passed, but the owner cannot pay for ${pages} page(s); nothing was written.`,
        completedAt,
      },
      heldOutcome: () => ({
        runId: run.id,
        datasetId: run.datasetId,
        reason: holdForDrift ? "drift" : "credits",
        schemaVersion: input.schemaVersion,
        columns: input.columns,
        pages,
        rowsDigest: rowsDigest(current),
        records: input.records.map(toHeldRecord),
        observations,
      }),
      ...(holdForDrift ? { holdForDrift } : {}),
      rows: reconciliation.rows,
      revisions: reconciliation.revisions,
      // Only revisions can cite this run's observations: a row without one keeps the evidence and
      // override snapshots it had (reconcile.ts), which cite earlier runs' observations.
      observations: observationsToStore(observations, reconciliation.revisions),
      charge: { ownerId: run.ownerId, pages, entryId: newId() },
      evidence,
      heldEvidence: { ...evidence, trace: input.trace(completedAt, { ...step, status: "failed" }) },
      ...(input.pageReads ? { pageReads: input.pageReads } : {}),
      ...(input.bodiesStored ? { bodiesStored: input.bodiesStored } : {}),
    });
    if (outcome._tag !== "RowsChanged") {
      const held = outcome._tag === "Held";
      yield* Effect.logInfo(held ? "run held" : "run accepted").pipe(
        Effect.annotateLogs({
          outcome: outcome._tag,
          ...(held ? { heldFor: holdForDrift ? "drift" : "credits" } : {}),
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
