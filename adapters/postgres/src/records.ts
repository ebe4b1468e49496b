import {
  type CellOverrides,
  type CheckResult,
  type FieldEvidence,
  type MissingReasons,
  type NewRevision,
  type Presence,
  type ResearchRowIdentity,
  type RowData,
  type RowDeltas,
  RowRecord,
  type RowStatus,
  RunRecord,
  type RunStatus,
  StoredRevision,
  storedDecoder,
} from "@gleaner/core";
import { iso, isoOrNull } from "./db.js";

// Table rows as pg returns them (snake_case, timestamptz as Date, jsonb parsed) and their mapping
// to the port's records, decoded with core's record schemas: a stored value the schema refuses is
// a StorageFailure, not a cast. Reads and writes of one table share the column list kept here.

export interface RunRow {
  readonly id: string;
  readonly dataset_id: string;
  readonly owner_id: string;
  readonly status: RunStatus;
  readonly trigger: "manual" | "schedule";
  readonly checks: ReadonlyArray<CheckResult>;
  readonly row_deltas: RowDeltas;
  readonly error: string | null;
  readonly queued_at: Date;
  readonly started_at: Date | null;
  readonly completed_at: Date | null;
  readonly attempts: number;
  readonly charged_pages: number | null;
  readonly accept_drift: boolean;
}

export const runColumns =
  "id, dataset_id, owner_id, status, trigger, checks, row_deltas, error, queued_at, started_at, completed_at, attempts, charged_pages, accept_drift";

const decodeRun = storedDecoder(RunRecord, "PostgreSQL", "run");

// In RunRecord's key order, like rowRecordOf's, for storedDecoder's fast path.
export const toRun = (row: RunRow) =>
  decodeRun({
    id: row.id,
    datasetId: row.dataset_id,
    status: row.status,
    checks: row.checks,
    rowDeltas: row.row_deltas,
    error: row.error,
    queuedAt: iso(row.queued_at),
    startedAt: isoOrNull(row.started_at),
    completedAt: isoOrNull(row.completed_at),
    ownerId: row.owner_id,
    trigger: row.trigger,
    attempts: row.attempts,
    chargedPages: row.charged_pages,
    ...(row.accept_drift ? { acceptDrift: true } : {}),
  });

/** $1…$14 in runColumns order. */
export const runValues = (run: RunRecord): ReadonlyArray<unknown> => [
  run.id,
  run.datasetId,
  run.ownerId,
  run.status,
  run.trigger,
  JSON.stringify(run.checks),
  JSON.stringify(run.rowDeltas),
  run.error,
  run.queuedAt,
  run.startedAt,
  run.completedAt,
  run.attempts,
  run.chargedPages,
  run.acceptDrift === true,
];

export interface RowTableRow {
  readonly id: string;
  readonly dataset_id: string;
  readonly row_key: string;
  readonly data: RowData;
  readonly evidence: FieldEvidence;
  readonly overrides: CellOverrides;
  readonly missing_reasons: MissingReasons;
  readonly presence: Presence;
  readonly status: RowStatus;
  readonly first_seen_run_id: string;
  readonly last_seen_run_id: string;
  readonly source_url: string;
  readonly observed_at: Date;
  readonly updated_at: Date;
  readonly revision_id: string | null;
  readonly identity: ResearchRowIdentity | null;
}

export const rowColumns =
  "id, dataset_id, row_key, data, evidence, overrides, missing_reasons, presence, status, first_seen_run_id, last_seen_run_id, source_url, observed_at, updated_at, revision_id, identity";

/** Rows with their dataset's last sighting (migration 0009): read rows `from ${rowsSeen}`. */
export const rowsSeen = "rows r left join row_sightings s on s.dataset_id = r.dataset_id";
/** A present row another run than the last sighting's saw last: that sighting saw it, unchanged. */
const seenBySighting = "(s.run_id is not null and r.presence = 'present' and r.last_seen_run_id <> s.run_id)";
/** The row's status as read: the sighting's `unchanged` when it applies. */
export const seenStatus = `case when ${seenBySighting} then 'unchanged' else r.status end`;
/** rowColumns of `rowsSeen`, with the seen-markers of the last sighting where it applies. */
export const seenRowColumns = `r.id, r.dataset_id, r.row_key, r.data, r.evidence, r.overrides, r.missing_reasons,
  r.presence, ${seenStatus} as status, r.first_seen_run_id,
  case when ${seenBySighting} then s.run_id else r.last_seen_run_id end as last_seen_run_id, r.source_url,
  case when ${seenBySighting} then s.observed_at else r.observed_at end as observed_at,
  r.updated_at, r.revision_id, r.identity`;

const decodeRow = storedDecoder(RowRecord, "PostgreSQL", "row");

/**
 * A row record in RowRecord's key order, so that storedDecoder's fast path takes it as it is
 * (decision 0032): in any other order the record still decodes, at Effect's full cost.
 */
export const rowRecordOf = (row: RowTableRow) => ({
  id: row.id,
  rowKey: row.row_key,
  data: row.data,
  revisionId: row.revision_id,
  presence: row.presence,
  missingReasons: row.missing_reasons,
  status: row.status,
  firstSeenRunId: row.first_seen_run_id,
  lastSeenRunId: row.last_seen_run_id,
  sourceUrl: row.source_url,
  observedAt: iso(row.observed_at),
  updatedAt: iso(row.updated_at),
  datasetId: row.dataset_id,
  ...(row.identity ? { identity: row.identity } : {}),
  evidence: row.evidence,
  overrides: row.overrides,
});

export const toRow = (row: RowTableRow) => decodeRow(rowRecordOf(row));

export interface RevisionRow {
  readonly id: string;
  readonly dataset_id: string;
  readonly row_id: string;
  readonly sequence: string;
  readonly schema_version: number;
  readonly previous_revision_id: string | null;
  readonly run_id: string | null;
  readonly actor_id: string | null;
  readonly request_id: string | null;
  readonly request_hash: string | null;
  readonly origin: StoredRevision["origin"];
  readonly kind: StoredRevision["kind"];
  readonly changed_field_ids: ReadonlyArray<string>;
  readonly data: RowData;
  readonly evidence: FieldEvidence;
  readonly overrides: CellOverrides;
  readonly missing_reasons: MissingReasons;
  readonly presence: Presence;
  readonly created_at: Date;
  readonly before: RowData | null;
  readonly before_overrides: CellOverrides | null;
}

export const revisionColumns =
  "id, dataset_id, row_id, sequence, schema_version, previous_revision_id, run_id, actor_id, request_id, request_hash, origin, kind, changed_field_ids, data, evidence, overrides, missing_reasons, presence, created_at, before, before_overrides";

const decodeRevision = storedDecoder(StoredRevision, "PostgreSQL", "revision");

export const toRevision = (row: RevisionRow) =>
  decodeRevision({
    id: row.id,
    datasetId: row.dataset_id,
    rowId: row.row_id,
    // bigint arrives as a string; sequences stay far below 2^53.
    sequence: Number(row.sequence),
    schemaVersion: row.schema_version,
    previousRevisionId: row.previous_revision_id,
    runId: row.run_id,
    actorId: row.actor_id,
    requestId: row.request_id,
    requestHash: row.request_hash,
    origin: row.origin,
    kind: row.kind,
    changedFieldIds: row.changed_field_ids,
    data: row.data,
    evidence: row.evidence,
    overrides: row.overrides,
    missingReasons: row.missing_reasons,
    presence: row.presence,
    createdAt: iso(row.created_at),
    before: row.before,
    beforeOverrides: row.before_overrides,
  });

/**
 * Bulk writes pass one JSON array parameter and expand it with json_to_recordset: one round trip
 * for any number of records, the JSON parts kept as the json columns' text (migration 0012: never
 * parsed into jsonb trees on write). These are the record shapes it reads.
 */
export const rowsAsRecordset = (rows: ReadonlyArray<RowRecord>, written: ReadonlyArray<NewRevision> = []): string => {
  const revisions = new Map(written.map((revision) => [revision.id, revision]));
  return JSON.stringify(
    rows.map((row) => {
      const common = {
        id: row.id,
        row_key: row.rowKey,
        status: row.status,
        first_seen_run_id: row.firstSeenRunId,
        last_seen_run_id: row.lastSeenRunId,
        source_url: row.sourceUrl,
        observed_at: row.observedAt,
        updated_at: row.updatedAt,
        revision_id: row.revisionId,
        identity: row.identity ?? null,
      };
      return carriesItsRevision(row, revisions)
        ? { ...common, from_revision: true }
        : {
            ...common,
            data: row.data,
            evidence: row.evidence,
            overrides: row.overrides,
            missing_reasons: row.missingReasons,
            presence: row.presence,
            from_revision: false,
          };
    }),
  );
};

/**
 * Whether a row's state is, object for object, the revision written with it (as core's reconcile
 * builds a revised row): then its state is read back from that revision in the same statement
 * instead of sent and parsed a second time (~1.6 MB for 1000 rows; decision 0020).
 */
export const carriesItsRevision = (row: RowRecord, revisions: ReadonlyMap<string, NewRevision>): boolean => {
  const revision = row.revisionId === null ? undefined : revisions.get(row.revisionId);
  return (
    revision !== undefined &&
    revision.rowId === row.id &&
    revision.data === row.data &&
    revision.evidence === row.evidence &&
    revision.overrides === row.overrides &&
    revision.missingReasons === row.missingReasons &&
    revision.presence === row.presence
  );
};

export const rowRecordsetType = `(id uuid, row_key text, data json, evidence json, overrides json,
  missing_reasons json, presence text, status text, first_seen_run_id uuid, last_seen_run_id uuid,
  source_url text, observed_at timestamptz, updated_at timestamptz, revision_id uuid, identity json,
  from_revision boolean)`;
