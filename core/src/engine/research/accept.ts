import { Clock, Effect } from "effect";
import { Storage } from "../../ports/storage.js";
import type { DatasetRecord } from "../../domain.js";
import type { RunEvidence, RunPlanRecord, RunRecord } from "../../run-domain.js";
import { newId, type ObservationId } from "../../schema/ids.js";
import type { SourceObservation } from "../../schema/row.js";
import type { CheckResult } from "../../schema/run.js";
import type { ExtractedRecord } from "../extract.js";
import { reconcilePhase } from "../reconcile.js";
import type { TraceRecorder } from "../trace.js";
import type { PageValidation } from "./validate.js";

import { researchTrace } from "./trace.js";

const maxAcceptAttempts = 5;
import { isoAt as iso } from "../../time.js";

/** One `model` observation per page read: its entries are the entity names and kept quotes. */
const observe = (
  pages: ReadonlyArray<{ readonly url: string; readonly sha256: string; readonly validation: PageValidation }>,
  run: RunRecord,
  now: string,
) =>
  pages.map(
    (p): SourceObservation => ({
      id: newId<ObservationId>(),
      sourceUrl: p.url,
      observedAt: now,
      contentDigest: `sha256:${p.sha256}`,
      entries: p.validation.entries,
      datasetId: run.datasetId,
      runId: run.id,
      pageKey: p.url,
      method: "model",
    }),
  );

/**
 * The accept phase of a research run: the same acceptance as deterministic runs (Storage.acceptRun:
 * rows, revisions, observations, one credit per distinct checked page, held when unpaid),
 * recomputed when a manual edit slipped in between. Its observations are the research pages
 * (method `model`), which is why it does not reuse the deterministic acceptPhase; like it, the plan
 * records the reconciliation and the held evidence ends with a failed accept step.
 */
export const acceptResearch = Effect.fn("run.research.accept")(function* (input: {
  readonly run: RunRecord;
  readonly dataset: DatasetRecord;
  readonly checks: ReadonlyArray<CheckResult>;
  readonly records: ReadonlyArray<ExtractedRecord>;
  readonly pages: ReadonlyArray<{ readonly url: string; readonly sha256: string; readonly validation: PageValidation }>;
  readonly recorder: TraceRecorder;
  readonly evidence: (completedAt: string) => RunEvidence;
  readonly plan: RunPlanRecord;
}) {
  const storage = yield* Storage;
  const { run, recorder } = input;
  const pages = new Set(input.pages.map((p) => p.url)).size;
  for (let attempt = 1; attempt <= maxAcceptAttempts; attempt++) {
    const started = yield* Clock.currentTimeMillis;
    const completedAt = iso(started);
    const observations = observe(input.pages, run, completedAt);
    const current = yield* storage.loadRows(run.datasetId);
    const reconciliation = yield* reconcilePhase({
      datasetId: run.datasetId,
      runId: run.id,
      schemaVersion: input.dataset.schemaVersion,
      columns: input.dataset.columns,
      current,
      records: input.records,
      observationByPage: new Map(observations.map((o) => [o.sourceUrl, o.id])),
      now: completedAt,
    });
    const plan: RunPlanRecord = { ...input.plan, reconciliation: reconciliation.record, pagesToCharge: pages };
    const step = {
      phase: "accept" as const,
      startedAt: completedAt,
      durationMs: Math.max(0, Math.round((yield* Clock.currentTimeMillis) - started)),
    };
    const base = input.evidence(completedAt);
    const evidence: RunEvidence = {
      ...base,
      plan,
      trace: researchTrace(run, recorder, completedAt, { ...step, status: "succeeded" }),
    };
    const outcome = yield* storage.acceptRun({
      run: {
        ...run,
        status: "succeeded",
        checks: input.checks,
        rowDeltas: reconciliation.rowDeltas,
        error: null,
        completedAt,
        chargedPages: pages,
      },
      heldRun: {
        ...run,
        status: "held",
        checks: input.checks,
        error: `Every check passed, but the owner cannot pay for ${pages} page(s); nothing was written.`,
        completedAt,
      },
      rows: reconciliation.rows,
      revisions: reconciliation.revisions,
      observations,
      charge: { ownerId: run.ownerId, pages, entryId: newId() },
      evidence,
      heldEvidence: { ...evidence, trace: researchTrace(run, recorder, completedAt, { ...step, status: "failed" }) },
    });
    if (outcome._tag !== "RowsChanged") return true;
  }
  return false;
});
