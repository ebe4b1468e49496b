import type { NewRevision, RowRecord, SourceObservation } from "@gleaner/core";
import { type CopyBinaryWriter, copyBinaryWriter } from "./copy-binary.js";
import { carriesItsRevision } from "./records.js";

// The binary COPY data of what an acceptance inserts in bulk (decisions 0029, 0033, 0034): revisions,
// observations and new rows, each in its table's column order (records.ts). Each is encoded in
// chunks, as they are asked for, so its first chunks reach the server while the rest is encoded
// (Transaction.copyFrom): the server's work on them no longer waits for the host's last byte.

/** A COPY's data, encoded one chunk at a time as the iterator is advanced; at least one chunk. */
export type CopyChunks = Iterable<Buffer>;

/** Tuples per chunk: ~100-250 KB of a books run, a few ms of encoding between two turns of I/O. */
export const tuplesPerChunk = 100;

/**
 * `items` as COPY data in chunks of `perChunk` tuples, each tuple written by `tuple`; `taken` hears
 * each chunk as it is handed out (what revisionsAsCopy needs to point into it).
 */
function* chunksOf<T>(
  items: ReadonlyArray<T>,
  bytesPerTuple: number,
  tuple: (copy: CopyBinaryWriter, item: T) => void,
  taken: (chunk: Buffer) => void = () => {},
  perChunk = tuplesPerChunk,
): Generator<Buffer, void, undefined> {
  const copy = copyBinaryWriter(Math.min(items.length, perChunk) * bytesPerTuple);
  for (let at = 0; at < items.length; at += perChunk) {
    for (const item of items.slice(at, at + perChunk)) tuple(copy, item);
    if (at + perChunk >= items.length) break;
    const chunk = copy.take();
    taken(chunk);
    yield chunk;
  }
  const last = copy.end();
  taken(last);
  yield last;
}

/** The revisions' COPY data, and where in it each revision's row state was written. */
export interface RevisionsCopy {
  readonly chunks: CopyChunks;
  /**
   * A revision's fields data, evidence, overrides, missing_reasons and presence as written in its
   * chunk (once that chunk was handed out): the rows table holds the same five columns in the same
   * order, so a new row carrying its revision's state copies these bytes instead of encoding its
   * JSON a second time.
   */
  readonly stateOf: (revisionId: string) => Buffer | undefined;
}

/**
 * Revisions as the data of `copy revisions (${revisionColumns}) from stdin with (format binary)`
 * (copy-binary.ts), in revisionColumns order: the dataset's, and sequences `first`, `first + 1`, … in
 * the order given.
 */
export const revisionsAsCopy = (
  datasetId: string,
  first: number,
  revisions: ReadonlyArray<NewRevision>,
): RevisionsCopy => {
  const states = new Map<string, Buffer>();
  // Ranges in the chunk being written; resolved to that chunk's bytes once it is handed out.
  let pending: Array<readonly [string, number, number]> = [];
  let index = 0;
  const chunks = chunksOf(
    revisions,
    2048,
    (copy, revision) => {
      copy.tuple(21);
      copy.uuid(revision.id);
      copy.uuid(datasetId);
      copy.uuid(revision.rowId);
      copy.int8(first + index++);
      copy.int4(revision.schemaVersion);
      copy.uuid(revision.previousRevisionId);
      copy.uuid(revision.runId);
      copy.uuid(revision.actorId);
      copy.text(revision.requestId);
      copy.text(revision.requestHash);
      copy.text(revision.origin);
      copy.text(revision.kind);
      copy.textArray(revision.changedFieldIds);
      const state = copy.offset();
      copy.json(revision.data);
      copy.json(revision.evidence);
      copy.json(revision.overrides);
      copy.json(revision.missingReasons);
      copy.text(revision.presence);
      pending.push([revision.id, state, copy.offset()]);
      copy.timestamptz(revision.createdAt);
      copy.json(revision.before);
      copy.json(revision.beforeOverrides);
    },
    (chunk) => {
      for (const [id, start, end] of pending) states.set(id, chunk.subarray(start, end));
      pending = [];
    },
  );
  return { chunks, stateOf: (revisionId) => states.get(revisionId) };
};

/**
 * Observations as the data of `copy observations (id, dataset_id, run_id, document) from stdin with
 * (format binary)`: each observation is new (its id made by the run that read it, decision 0029),
 * and its document the json text of the whole observation, which `written` hears. Ten pages a chunk
 * (~26 KB each on books).
 */
export const observationsAsCopy = (
  observations: ReadonlyArray<SourceObservation>,
  written: (id: string, document: string) => void = () => {},
): CopyChunks =>
  chunksOf(
    observations,
    32 * 1024,
    (copy, o) => {
      copy.tuple(4);
      copy.uuid(o.id);
      copy.uuid(o.datasetId ?? null);
      copy.uuid(o.runId ?? null);
      // A json column's binary form is its text.
      const document = JSON.stringify(o);
      copy.text(document);
      written(o.id, document);
    },
    undefined,
    10,
  );

/**
 * Rows no stored row has the id of, as the data of `copy rows (${rowColumns}) from stdin with (format
 * binary)`. A row whose state is its revision's, written in `revisions` (`carriesItsRevision`),
 * takes that revision's bytes; any other row's state is encoded here. Chunks are encoded as they are
 * asked for: those of `revisions` must have been handed out before.
 */
export const newRowsAsCopy = (
  datasetId: string,
  rows: ReadonlyArray<RowRecord>,
  written: ReadonlyArray<NewRevision>,
  revisions: RevisionsCopy | null,
): CopyChunks => {
  const byId = new Map(written.map((revision) => [revision.id, revision]));
  return chunksOf(rows, 1024, (copy, row) => {
    copy.tuple(16);
    copy.uuid(row.id);
    copy.uuid(datasetId);
    copy.text(row.rowKey);
    const state = carriesItsRevision(row, byId) ? revisions?.stateOf(row.revisionId!) : undefined;
    if (state) copy.raw(state);
    else {
      copy.json(row.data);
      copy.json(row.evidence);
      copy.json(row.overrides);
      copy.json(row.missingReasons);
      copy.text(row.presence);
    }
    copy.text(row.status);
    copy.uuid(row.firstSeenRunId);
    copy.uuid(row.lastSeenRunId);
    copy.text(row.sourceUrl);
    copy.timestamptz(row.observedAt);
    copy.timestamptz(row.updatedAt);
    copy.uuid(row.revisionId);
    copy.json(row.identity ?? null);
  });
};
