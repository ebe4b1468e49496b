import type { DatasetColumn } from "../schema/column.js";
import type { DiagnosticBasis, RunDiagnosticsPayload } from "../schema/diagnostics.js";
import {
  completionArea,
  costArea,
  reconciliationArea,
  requestArea,
  sourcesArea,
  timingArea,
  cellsArea,
  driftArea,
} from "./areas.js";
import { entityDiagnosis } from "./entity.js";
import { findingsOf, unknownsOf } from "./findings.js";
import { limitUnknowns, type RunRecording } from "./model.js";
import { indexRun } from "./run-index.js";
import { lossSummary } from "./summary.js";

export interface DiagnosticsAsked {
  readonly summary: boolean;
  /**
   * `replay`: the recording's facts were recomputed from a research run's artifacts (get-diagnostics
   * does that before calling); `recorded` (the default) is what the run stored.
   */
  readonly basis?: typeof DiagnosticBasis.Type;
  /** What the replay could not recompute (a page text not kept, an output not recorded). */
  readonly replayUnknowns?: ReadonlyArray<string>;
  /** Set when the run's record was removed by retention: said in place of "nothing was recorded". */
  readonly recordRemoved?: string;
  /** An exact recorded entity name (rowKey or identity value). */
  readonly entity?: string;
  /** The column `field` named (already resolved from a Field id or exact label). */
  readonly field?: DatasetColumn;
}

/**
 * RunDiagnostics from what a run recorded: pure, the same for every store. Observations are
 * recorded facts, findings are derived by the fixed rules of findings.ts, unknowns name what was
 * not recorded; the model (which fact belongs to which stage) is docs/decisions/0013-diagnostics.md.
 */
export const diagnoseRun = (recording: RunRecording, asked: DiagnosticsAsked): RunDiagnosticsPayload => {
  const index = indexRun(recording);
  const { run, evidence } = recording;
  const attemptId = evidence?.trace.steps[0]?.attemptId ?? null;
  const basis = asked.basis ?? "recorded";
  const unknowns = asked.recordRemoved
    ? [asked.recordRemoved]
    : [...unknownsOf(index), ...(asked.replayUnknowns ?? [])];
  return {
    runId: run.id,
    basis,
    attemptId,
    status: run.status,
    request: requestArea(index),
    sources: sourcesArea(index),
    cells: cellsArea(index),
    reconciliation: reconciliationArea(index),
    completion: completionArea(index),
    cost: costArea(index),
    timing: timingArea(index),
    observations:
      evidence === null
        ? null
        : {
            pagesRead: index.pagesRead.size,
            pagesNotRead: index.pagesNotRead.size,
            records: evidence.facts.length,
            recordsWithoutIdentity: index.unkeyed.length,
            entities: index.entities.size,
            checks: run.checks.length,
            traceSteps: evidence.trace.steps.length,
          },
    ...(index.plan?.drift ? { drift: driftArea(index) } : {}),
    findings: findingsOf(index),
    unknowns: limitUnknowns(unknowns),
    ...(asked.summary ? { summary: lossSummary(index, attemptId, unknowns, basis) } : {}),
    ...(asked.entity !== undefined
      ? { entity: entityDiagnosis(index, asked.entity, asked.field, attemptId, basis) }
      : {}),
  };
};
