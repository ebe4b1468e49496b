import type { NewRevision, RowRecord, SourceObservation } from "@gleaner/core";
import { copyBinaryWriter } from "./copy-binary.js";
import { carriesItsRevision } from "./records.js";

// The binary COPY data of what an acceptance inserts in bulk (decisions 0029, 0033): revisions,
// observations and new rows, each in its table's column order (records.ts).

/** The revisions' COPY data, and where in it each revision's row state was written. */
export interface RevisionsCopy {
  readonly data: Buffer;
  /**
   * A revision's fields data, evidence, overrides, missing_reasons and presence as written in `data`:
   * the rows table holds the same five columns in the same order, so a new row carrying its
   * revision's state copies these bytes instead of encoding its JSON a second time.
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
  const copy = copyBinaryWriter(revisions.length * 2048);
  const states = new Map<string, readonly [number, number]>();
  revisions.forEach((revision, index) => {
    copy.tuple(21);
    copy.uuid(revision.id);
    copy.uuid(datasetId);
    copy.uuid(revision.rowId);
    copy.int8(first + index);
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
    states.set(revision.id, [state, copy.offset()]);
    copy.timestamptz(revision.createdAt);
    copy.json(revision.before);
    copy.json(revision.beforeOverrides);
  });
  const data = copy.end();
  return {
    data,
    stateOf: (revisionId) => {
      const range = states.get(revisionId);
      return range && data.subarray(range[0], range[1]);
    },
  };
};

/**
 * Observations as the data of `copy observations (id, dataset_id, run_id, document) from stdin with
 * (format binary)`: each observation is new (its id made by the run that read it, decision 0029),
 * and its document the json text of the whole observation.
 */
export const observationsAsCopy = (observations: ReadonlyArray<SourceObservation>): Buffer => {
  const copy = copyBinaryWriter(observations.length * 32 * 1024);
  for (const o of observations) {
    copy.tuple(4);
    copy.uuid(o.id);
    copy.uuid(o.datasetId ?? null);
    copy.uuid(o.runId ?? null);
    copy.json(o);
  }
  return copy.end();
};

/**
 * Rows no stored row has the id of, as the data of `copy rows (${rowColumns}) from stdin with (format
 * binary)`. A row whose state is its revision's, written in `revisions` (`carriesItsRevision`),
 * takes that revision's bytes; any other row's state is encoded here.
 */
export const newRowsAsCopy = (
  datasetId: string,
  rows: ReadonlyArray<RowRecord>,
  written: ReadonlyArray<NewRevision>,
  revisions: RevisionsCopy | null,
): Buffer => {
  const byId = new Map(written.map((revision) => [revision.id, revision]));
  const copy = copyBinaryWriter(rows.length * 1024);
  for (const row of rows) {
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
  }
  return copy.end();
};
