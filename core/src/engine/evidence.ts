import type { RecordFact, RunArtifact, RunEvidence, RunPlanRecord } from "../run-domain.js";
import { type DatasetId, newId, type ObservationId, type RunId } from "../schema/ids.js";
import type { SourceObservation } from "../schema/row.js";
import type { ReadOutcome } from "./read.js";

export const artifactBodyLimit = 64 * 1024;

/** Page observations (one per page read) with their content digests and item entries. */
export const observePages = (read: ReadOutcome, datasetId: DatasetId, runId: RunId, now: string) =>
  read.pages.map(
    (p): SourceObservation => ({
      id: newId<ObservationId>(),
      sourceUrl: p.page.finalUrl,
      observedAt: now,
      contentDigest: `sha256:${p.sha256}`,
      entries: p.entries,
      datasetId,
      runId,
      pageKey: p.page.finalUrl,
      method: "deterministic",
    }),
  );

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
    const size = new TextEncoder().encode(p.page.body).byteLength;
    artifacts.push({
      id: newId(),
      runId,
      kind: "page",
      url: p.page.finalUrl,
      contentType: p.page.contentType,
      sha256: p.sha256,
      size,
      truncated: size > artifactBodyLimit,
      body: size > artifactBodyLimit ? null : p.page.body,
      createdAt: now,
    });
  }
  const facts: RecordFact[] = read.records.map((r) => ({
    rowKey: r.rowKey,
    pageUrl: r.pageUrl,
    index: r.index,
    cells: [...r.cells].map(([fieldId, cell]) => ({
      fieldId,
      value: cell.value,
      missingReason: cell.missingReason,
      raw: cell.raw,
    })),
  }));
  const failures = read.failures.map((f) => ({
    stage: "retrieval",
    code: f.failure.reason,
    detail: f.message,
    url: f.url,
    stepId: f.stepId,
    status: f.failure.status,
  }));
  return { trace, artifacts, facts, failures, plan };
};
