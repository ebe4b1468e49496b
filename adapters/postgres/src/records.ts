import {
  RowRecord,
  RunRecord,
  type StoredRevision,
  StoredRevision as StoredRevisionSchema,
  storedDecoder,
} from "@gleaner/core";
import * as Effect from "effect/Effect";
import { iso, isoOrNull, type Sql, type TableRow, tableMapping } from "./db.js";

// The runs, rows and revisions tables: each record's columns (one mapping a write uses, `tableMapping`)
// and its read back (one function, decoded with core's schema: a stored value the schema refuses is a
// StorageFailure, not a cast). Table rows come from pg as it parses them: timestamptz as Date, json parsed.
// A read builds its record in the schema's key order: storedDecoder then takes it as it is, at a
// fraction of Effect's cost (core's stored-check.ts, kept for what decoding costs an unchanged re-run);
// in any other order it decodes the same, only slower.

export const runTable = tableMapping<RunRecord>({
  id: ["uuid", (r) => r.id],
  dataset_id: ["uuid", (r) => r.datasetId],
  owner_id: ["uuid", (r) => r.ownerId],
  status: ["text", (r) => r.status],
  trigger: ["text", (r) => r.trigger],
  checks: ["jsonb", (r) => r.checks],
  row_deltas: ["jsonb", (r) => r.rowDeltas],
  error: ["text", (r) => r.error],
  queued_at: ["timestamptz", (r) => r.queuedAt],
  started_at: ["timestamptz", (r) => r.startedAt],
  completed_at: ["timestamptz", (r) => r.completedAt],
  attempts: ["integer", (r) => r.attempts],
  charged_pages: ["integer", (r) => r.chargedPages],
  accept_drift: ["boolean", (r) => r.acceptDrift === true],
});

const decodeRun = storedDecoder(RunRecord, "PostgreSQL", "run");

export const toRun = (row: TableRow) =>
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
    ...(row.accept_drift === true ? { acceptDrift: true } : {}),
  });

export const rowTable = tableMapping<RowRecord>({
  id: ["uuid", (r) => r.id],
  dataset_id: ["uuid", (r) => r.datasetId],
  row_key: ["text", (r) => r.rowKey],
  data: ["json", (r) => r.data],
  evidence: ["json", (r) => r.evidence],
  overrides: ["json", (r) => r.overrides],
  missing_reasons: ["json", (r) => r.missingReasons],
  presence: ["text", (r) => r.presence],
  status: ["text", (r) => r.status],
  first_seen_run_id: ["uuid", (r) => r.firstSeenRunId],
  last_seen_run_id: ["uuid", (r) => r.lastSeenRunId],
  source_url: ["text", (r) => r.sourceUrl],
  observed_at: ["timestamptz", (r) => r.observedAt],
  updated_at: ["timestamptz", (r) => r.updatedAt],
  revision_id: ["uuid", (r) => r.revisionId],
  identity: ["json", (r) => r.identity ?? null],
});

/**
 * Rows with their dataset's last sighting (migration 0009): an accepted run records once that it saw
 * the dataset, instead of rewriting every row it saw unchanged. Select `${rowsSeenColumns} from ${rowsSeen}`.
 */
export const rowsSeen = "rows r left join row_sightings s on s.dataset_id = r.dataset_id";
export const rowsSeenColumns = "r.*, s.run_id as sighting_run_id, s.observed_at as sighting_observed_at";
/** A present row another run than the last sighting's saw last: that sighting saw it, unchanged. */
const seenBySighting = "(s.run_id is not null and r.presence = 'present' and r.last_seen_run_id <> s.run_id)";
/** The row's status as read (for filters): the sighting's `unchanged` when it applies. */
export const seenStatus = `case when ${seenBySighting} then 'unchanged' else r.status end`;

const decodeRow = storedDecoder(RowRecord, "PostgreSQL", "row");

/** A row as read from `rowsSeen`, undecoded: with the sighting's seen-markers where it saw the row (as seenBySighting). */
export const rowRecordOf = (row: TableRow) => {
  const sighted =
    row.sighting_run_id != null && row.presence === "present" && row.last_seen_run_id !== row.sighting_run_id;
  return {
    id: row.id,
    rowKey: row.row_key,
    data: row.data,
    revisionId: row.revision_id,
    presence: row.presence,
    missingReasons: row.missing_reasons,
    status: sighted ? "unchanged" : row.status,
    firstSeenRunId: row.first_seen_run_id,
    lastSeenRunId: sighted ? row.sighting_run_id : row.last_seen_run_id,
    sourceUrl: row.source_url,
    observedAt: iso(sighted ? row.sighting_observed_at : row.observed_at),
    updatedAt: iso(row.updated_at),
    datasetId: row.dataset_id,
    ...(row.identity == null ? {} : { identity: row.identity }),
    evidence: row.evidence,
    overrides: row.overrides,
  };
};

export const toRow = (row: TableRow) => decodeRow(rowRecordOf(row));

export const revisionTable = tableMapping<StoredRevision>({
  id: ["uuid", (r) => r.id],
  dataset_id: ["uuid", (r) => r.datasetId],
  row_id: ["uuid", (r) => r.rowId],
  sequence: ["bigint", (r) => r.sequence],
  schema_version: ["integer", (r) => r.schemaVersion],
  previous_revision_id: ["uuid", (r) => r.previousRevisionId],
  run_id: ["uuid", (r) => r.runId],
  actor_id: ["uuid", (r) => r.actorId],
  request_id: ["text", (r) => r.requestId],
  request_hash: ["text", (r) => r.requestHash],
  origin: ["text", (r) => r.origin],
  kind: ["text", (r) => r.kind],
  changed_field_ids: ["text[]", (r) => r.changedFieldIds],
  data: ["json", (r) => r.data],
  evidence: ["json", (r) => r.evidence],
  overrides: ["json", (r) => r.overrides],
  missing_reasons: ["json", (r) => r.missingReasons],
  presence: ["text", (r) => r.presence],
  created_at: ["timestamptz", (r) => r.createdAt],
  before: ["json", (r) => r.before],
  before_overrides: ["json", (r) => r.beforeOverrides],
});

const decodeRevision = storedDecoder(StoredRevisionSchema, "PostgreSQL", "revision");

export const toRevision = (row: TableRow) =>
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

/** Overwrites every column of a stored run but its id, dataset, owner and acceptDrift, which never change. Sent (`Sql.send`). */
export const sendRun = (tx: Sql, run: RunRecord) => {
  const batch = runTable.batch([run], "$2");
  return tx
    .send(
      `update runs r set ${runTable.updates(["id", "dataset_id", "owner_id", "accept_drift"])}
         from (${batch.select}) as excluded
        where r.id = $1`,
      [run.id, batch.value],
    )
    .pipe(Effect.map(Effect.asVoid));
};
