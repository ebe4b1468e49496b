import type { RecordedFailure, RecordFact, RunArtifact, RunEvidence, RunPlanRecord } from "../run-domain.js";
import { recordFact } from "../rules/record-fact.js";
import { type DatasetId, newId, type ObservationId, type RunId } from "../schema/ids.js";
import type { SourceObservation } from "../schema/row.js";
import type { ReadOutcome } from "./read.js";

export const artifactBodyLimit = 64 * 1024;

/** Whether an artifact keeps a body of `size` UTF-8 bytes (larger ones are stored truncated, without it). */
export const truncatedAt = (size: number): boolean => size > artifactBodyLimit;

/** A page read, as its observation cites it: where, its content digest and its entries. */
export interface ObservedPage {
  readonly url: string;
  readonly sha256: string;
  readonly entries: SourceObservation["entries"];
}

/**
 * One observation per page read, `method` saying what read it: the parser (deterministic runs)
 * or a language model (research runs, whose entries are entity names and kept quotes).
 */
export const observePages = (
  pages: ReadonlyArray<ObservedPage>,
  method: NonNullable<SourceObservation["method"]>,
  run: { readonly datasetId: DatasetId; readonly id: RunId },
  now: string,
) =>
  pages.map(
    (p): SourceObservation => ({
      id: newId<ObservationId>(),
      sourceUrl: p.url,
      observedAt: now,
      contentDigest: `sha256:${p.sha256}`,
      entries: p.entries,
      datasetId: run.datasetId,
      runId: run.id,
      pageKey: p.url,
      method,
    }),
  );

/** The pages a deterministic run parsed, as observed pages. */
export const parsedPages = (read: ReadOutcome): ReadonlyArray<ObservedPage> =>
  read.pages.map((p) => ({ url: p.page.finalUrl, sha256: p.sha256, entries: p.entries }));

/** Artifacts, facts and failures of a run: what diagnostics and the artifact endpoints show. */
export const runEvidence = (
  read: ReadOutcome,
  runId: RunId,
  now: string,
  trace: RunEvidence["trace"],
  plan: RunPlanRecord,
): RunEvidence => {
  const artifacts: RunArtifact[] = [];
  for (const p of read.pages) {
    const size = p.size;
    artifacts.push({
      id: newId(),
      runId,
      kind: "page",
      url: p.page.finalUrl,
      contentType: p.page.contentType,
      sha256: p.sha256,
      size,
      truncated: truncatedAt(size),
      body: truncatedAt(size) ? null : p.page.body,
      createdAt: now,
    });
  }
  const facts: RecordFact[] = read.records.map(recordFact);
  return { trace, artifacts, facts, failures: recordedFailures(read.failures), plan };
};

/** Reads that did not yield a page, as recorded for diagnostics (stage `retrieval`). */
export const recordedFailures = (failures: ReadOutcome["failures"]): RecordedFailure[] =>
  failures.map((f) => ({
    stage: "retrieval",
    code: f.failure.reason,
    detail: f.message,
    url: f.url,
    stepId: f.stepId,
    status: f.failure.status,
  }));
