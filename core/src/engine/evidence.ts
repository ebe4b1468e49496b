import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import { Storage } from "../ports/storage.js";
import type { RecordedFailure, RecordFact, RunArtifact, RunEvidence, RunPlanRecord } from "../run-domain.js";
import { type DatasetId, newId, type ObservationId, type RunId } from "../schema/ids.js";
import type { SourceObservation } from "../schema/row.js";
import type { ReadOutcome } from "./read.js";

export const artifactBodyLimit = 64 * 1024;

/**
 * Hands a page's body to a store that keeps bodies by digest (`keepPageBody`) as soon as it is read,
 * so its write overlaps the rest of the read instead of lengthening the acceptance. Not waited for
 * and never failing the run; bodies over the artifact limit are not kept (their artifact has none).
 */
export const keepPageBody = (sha256: string, body: string) =>
  Effect.serviceOption(Storage).pipe(
    Effect.flatMap((storage) => {
      const keep = Option.getOrUndefined(storage)?.keepPageBody;
      return keep === undefined || new TextEncoder().encode(body).byteLength > artifactBodyLimit
        ? Effect.void
        : Effect.forkDaemon(Effect.ignore(keep(sha256, body)));
    }),
    Effect.asVoid,
  );

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
