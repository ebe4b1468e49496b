import { Clock, Effect } from "effect";
import { Storage } from "../../ports/storage.js";
import type { DatasetRecord } from "../../domain.js";
import type { RunEvidence, RunRecord } from "../../run-domain.js";
import type { ObservationId } from "../../schema/ids.js";
import type { SourceObservation } from "../../schema/row.js";
import type { CheckResult } from "../../schema/run.js";
import type { ExtractedRecord } from "../extract.js";
import { reconcile } from "../reconcile.js";
import type { TraceRecorder } from "../trace.js";
import type { PageValidation } from "./validate.js";

const maxAcceptAttempts = 5;
const iso = (ms: number) => new Date(ms).toISOString();

/** One `model` observation per page read: its entries are the entity names and kept quotes. */
const observe = (
  pages: ReadonlyArray<{ readonly url: string; readonly sha256: string; readonly validation: PageValidation }>,
  run: RunRecord,
  now: string,
) =>
  pages.map(
    (p): SourceObservation => ({
      id: globalThis.crypto.randomUUID() as ObservationId,
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
 * recomputed when a manual edit slipped in between.
 */
export const acceptResearch = (input: {
  readonly run: RunRecord;
  readonly dataset: DatasetRecord;
  readonly checks: ReadonlyArray<CheckResult>;
  readonly records: ReadonlyArray<ExtractedRecord>;
  readonly pages: ReadonlyArray<{ readonly url: string; readonly sha256: string; readonly validation: PageValidation }>;
  readonly recorder: TraceRecorder;
  readonly evidence: (completedAt: string) => RunEvidence;
}) =>
  Effect.gen(function* () {
    const storage = yield* Storage;
    const { run, recorder } = input;
    const pages = new Set(input.pages.map((p) => p.url)).size;
    for (let attempt = 1; attempt <= maxAcceptAttempts; attempt++) {
      const started = yield* Clock.currentTimeMillis;
      const completedAt = iso(started);
      const observations = observe(input.pages, run, completedAt);
      const current = yield* storage.loadRows(run.datasetId);
      const plan = reconcile({
        datasetId: run.datasetId,
        runId: run.id,
        schemaVersion: input.dataset.schemaVersion,
        columns: input.dataset.columns,
        current,
        records: input.records,
        observationByPage: new Map(observations.map((o) => [o.sourceUrl, o.id])),
        now: completedAt,
      });
      recorder.add({
        phase: "accept",
        status: "succeeded",
        startedAt: completedAt,
        durationMs: Math.max(0, Math.round((yield* Clock.currentTimeMillis) - started)),
      });
      const outcome = yield* storage.acceptRun({
        run: {
          ...run,
          status: "succeeded",
          checks: input.checks,
          rowDeltas: plan.rowDeltas,
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
        rows: plan.rows,
        revisions: plan.revisions,
        observations,
        charge: { ownerId: run.ownerId, pages, entryId: globalThis.crypto.randomUUID() },
        evidence: input.evidence(completedAt),
      });
      if (outcome._tag !== "RowsChanged") return true;
    }
    return false;
  });
