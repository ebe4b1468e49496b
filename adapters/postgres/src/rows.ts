import {
  type NewRevision,
  type RowRecord,
  RowsPageState,
  type RunAcceptance,
  SourceObservation,
  StorageFailure,
  type RowStorage,
  type StoredRevision,
  storedDecoder,
} from "@gleaner/core";
import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import {
  allDecoded,
  conflictsOn,
  type Db,
  duplicateRequest,
  firstDecoded,
  isUuid,
  type Transaction,
  staleRevision,
  uuidArray,
} from "./db.js";
import {
  carriesItsRevision,
  type RevisionRow,
  type RowTableRow,
  revisionColumns,
  rowColumns,
  rowRecordsetType,
  rowsAsRecordset,
  rowsSeen,
  seenRowColumns,
  seenStatus,
  toRevision,
  toRow,
} from "./records.js";
import { newRowsAsCopy, observationsAsCopy, type RevisionsCopy, revisionsAsCopy } from "./acceptance-copy.js";
import { observationDocument, parsedJson } from "./text-documents.js";
import { cachedRows } from "./rows-read.js";
import type { RowsCache } from "./rows-cache.js";

/**
 * Inserts or replaces rows of a dataset in one statement. A row listed twice keeps its last
 * version, as repeated Map.set would in memory (ON CONFLICT may not touch one row twice). A row
 * whose state is that of a revision in `written` (already inserted in this transaction) takes it
 * from that revision row rather than from a second copy of the JSON; if that revision were not
 * there, the NOT NULL columns would refuse the write and the transaction would roll back.
 * Sends the statement (`Transaction.send`), its parameter encoded by `rowsParameter`, and answers the
 * Effect awaiting it.
 */
export const sendRows = (
  tx: Transaction,
  datasetId: string,
  parameter: string | null,
): Effect.Effect<Effect.Effect<void, StorageFailure>> => {
  if (parameter === null) return Effect.succeed(Effect.void);
  const assignments = rowColumns
    .split(", ")
    .filter((column) => column !== "id")
    .map((column) => `${column} = excluded.${column}`)
    .join(", ");
  const stated = (column: string) => `case when r.from_revision then v.${column} else r.${column} end`;
  return tx
    .send(
      `insert into rows (${rowColumns})
       select r.id, $1, r.row_key, ${stated("data")}, ${stated("evidence")}, ${stated("overrides")},
              ${stated("missing_reasons")}, ${stated("presence")}, r.status,
              r.first_seen_run_id, r.last_seen_run_id, r.source_url, r.observed_at, r.updated_at, r.revision_id,
              r.identity
         from json_to_recordset($2::json) as r${rowRecordsetType}
         left join revisions v on r.from_revision and v.id = r.revision_id and v.dataset_id = $1
       on conflict (id) do update set ${assignments}`,
      [datasetId, parameter],
    )
    .pipe(Effect.map(Effect.asVoid));
};

/** sendRows' parameter: each row once, its last version (null when there is none to write). */
export const rowsParameter = (rows: ReadonlyArray<RowRecord>, written: ReadonlyArray<NewRevision> = []) => {
  const last = lastVersions(rows);
  return last.length === 0 ? null : rowsAsRecordset(last, written);
};

const upsertRows = (
  tx: Transaction,
  datasetId: string,
  rows: ReadonlyArray<RowRecord>,
  written: ReadonlyArray<NewRevision> = [],
) => Effect.flatten(sendRows(tx, datasetId, rowsParameter(rows, written)));

/**
 * Records that `acceptance.run` saw its dataset (migration 0009): every acceptance replaces the
 * sighting, so the rows it did not rewrite read with its seen-markers. A run that saw rows unchanged
 * gives them all one `observedAt` (core's acceptance time): that is the sighting's. Sent (`Transaction.send`).
 */
export const sendSighting = (tx: Transaction, { run, rows }: RunAcceptance) => {
  const observedAt = rows.find((r) => r.seenOnly)?.row.observedAt ?? run.completedAt ?? run.startedAt;
  return tx
    .send(
      `insert into row_sightings (dataset_id, run_id, observed_at) values ($1, $2, $3)
       on conflict (dataset_id) do update set run_id = excluded.run_id, observed_at = excluded.observed_at`,
      [run.datasetId, run.id, observedAt],
    )
    .pipe(Effect.map(Effect.asVoid));
};

/**
 * Allocates `count` sequences of the dataset's revision counter: last + 1 … last + n. The UPDATE
 * also locks the dataset row until commit, so concurrent writers get consecutive, gapless blocks.
 * Sent (`Transaction.send`); the Effect awaiting it gives the first sequence allocated.
 */
export const sendSequenceAllocation = (
  tx: Transaction,
  datasetId: string,
  count: number,
): Effect.Effect<Effect.Effect<number, StorageFailure>> =>
  count === 0
    ? Effect.succeed(Effect.succeed(0))
    : Effect.map(
        tx.send<{ last_sequence: string }>(
          "update datasets set last_sequence = last_sequence + $2 where id = $1 returning last_sequence",
          [datasetId, count],
        ),
        (sent) =>
          Effect.flatMap(sent, ([allocated]) =>
            allocated
              ? Effect.succeed(Number(allocated.last_sequence) - count + 1)
              : Effect.fail(
                  new StorageFailure({
                    message: `PostgreSQL: revisions for dataset ${datasetId}, which does not exist.`,
                  }),
                ),
          ),
      );

/**
 * Appends revisions with their allocated sequences (`first`, `first + 1`, …) by one binary COPY
 * (`revisionsAsCopy`), streamed as it is encoded (`Transaction.copyFrom`): revisions are only ever
 * inserted, and COPY reads each json column once (decisions 0025, 0029, 0034). Answers, once every
 * chunk is written, the Effect awaiting the server and the copy (null when there are no revisions),
 * whose row states new rows copy.
 */
export const sendRevisions = (
  tx: Transaction,
  datasetId: string,
  first: number,
  revisions: ReadonlyArray<NewRevision>,
): Effect.Effect<readonly [Effect.Effect<void, StorageFailure>, RevisionsCopy | null], StorageFailure> => {
  if (revisions.length === 0) return Effect.succeed([Effect.void, null]);
  const copy = revisionsAsCopy(datasetId, first, revisions);
  return Effect.map(
    tx.copyFrom(`copy revisions (${revisionColumns}) from stdin with (format binary)`, copy.chunks),
    (acknowledged) => [acknowledged, copy] as const,
  );
};

/**
 * Revisions the server writes from their rows (decision 0036): every revision of the acceptance
 * creates a new row that carries its state (`carriesItsRevision`), and they share everything but
 * their ids (run, schema version, origin, time, changed fields), as a run's first acceptance of a
 * dataset does. Their ids in sequence order, and what they share; null when any differs.
 */
export interface RevisionsFromRows {
  readonly rowIds: ReadonlyArray<string>;
  readonly revisionIds: ReadonlyArray<string>;
  readonly shared: NewRevision;
}

const sameList = (a: ReadonlyArray<string>, b: ReadonlyArray<string>) =>
  a.length === b.length && a.every((item, i) => item === b[i]);

/**
 * A time the server reads as the COPY encoder does (copy-binary.ts): with its offset, to the
 * microsecond at most. Without an offset the server would take its session's zone, and it rounds
 * digits past the sixth where the encoder drops them.
 */
const exactTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})$/;

export const revisionsFromRows = (
  revisions: ReadonlyArray<NewRevision>,
  newRows: ReadonlyArray<RowRecord>,
): RevisionsFromRows | null => {
  const [shared] = revisions;
  if (shared === undefined || shared.kind !== "created" || !exactTime.test(shared.createdAt)) return null;
  const byId = new Map(revisions.map((revision) => [revision.id, revision]));
  const carried = new Set(newRows.filter((row) => carriesItsRevision(row, byId)).map((row) => row.revisionId));
  if (carried.size !== revisions.length) return null;
  const alike = revisions.every(
    (r) =>
      carried.has(r.id) &&
      r.kind === "created" &&
      r.previousRevisionId === null &&
      r.before === null &&
      r.beforeOverrides === null &&
      r.schemaVersion === shared.schemaVersion &&
      r.runId === shared.runId &&
      r.actorId === shared.actorId &&
      r.requestId === shared.requestId &&
      r.requestHash === shared.requestHash &&
      r.origin === shared.origin &&
      r.createdAt === shared.createdAt &&
      sameList(r.changedFieldIds, shared.changedFieldIds),
  );
  return alike ? { rowIds: revisions.map((r) => r.rowId), revisionIds: revisions.map((r) => r.id), shared } : null;
};

/**
 * Inserts `revisionsFromRows`' revisions by one INSERT … SELECT from their rows, written before it
 * in the transaction: their state is the rows', read by primary key, and sequences `first`,
 * `first + 1`, … in the order given. Only the ids go over the wire; the host encodes no revision.
 * Fails the transaction unless every revision found its row. Sent (`Transaction.send`).
 */
export const sendRevisionsFromRows = (
  tx: Transaction,
  datasetId: string,
  first: number,
  { rowIds, revisionIds, shared }: RevisionsFromRows,
): Effect.Effect<Effect.Effect<void, StorageFailure>> =>
  Effect.map(
    tx.send<{ written: number }>(
      `with written as (
         insert into revisions (${revisionColumns})
         select o.revision_id, $1, r.id, $2::bigint + o.n - 1, $3, null, $4, $5, $6, $7, $8, 'created', $9::text[],
                r.data, r.evidence, r.overrides, r.missing_reasons, r.presence, $10, null, null
           from unnest($11::uuid[], $12::uuid[]) with ordinality as o(row_id, revision_id, n)
           join rows r on r.id = o.row_id and r.dataset_id = $1 and r.revision_id = o.revision_id
         returning 1)
       select count(*)::int as written from written`,
      [
        datasetId,
        first,
        shared.schemaVersion,
        shared.runId,
        shared.actorId,
        shared.requestId,
        shared.requestHash,
        shared.origin,
        shared.changedFieldIds,
        shared.createdAt,
        uuidArray(rowIds),
        uuidArray(revisionIds),
      ],
    ),
    (sent) =>
      Effect.flatMap(sent, ([row]) =>
        row?.written === revisionIds.length
          ? Effect.void
          : Effect.fail(
              new StorageFailure({
                message: `PostgreSQL: ${row?.written ?? 0} of ${revisionIds.length} revisions found their new row; nothing is written.`,
              }),
            ),
      ),
  );

/** Each row once, its last version, as repeated Map.set keeps it in memory. */
export const lastVersions = (rows: ReadonlyArray<RowRecord>) => [...new Map(rows.map((row) => [row.id, row])).values()];

/**
 * Inserts rows no stored row has the id of (an accepted row expected `absent`: core checked that
 * against the heads locked under the dataset's lock) by one binary COPY, streamed: a new row needs no
 * upsert, and one carrying its revision's state copies that revision's bytes (`newRowsAsCopy`,
 * decision 0033), so `revisions` must have been sent. A row that exists after all fails the
 * transaction.
 */
export const sendNewRows = (
  tx: Transaction,
  datasetId: string,
  rows: ReadonlyArray<RowRecord>,
  written: ReadonlyArray<NewRevision>,
  revisions: RevisionsCopy | null,
) =>
  rows.length === 0
    ? Effect.succeed(Effect.void)
    : tx.copyFrom(
        `copy rows (${rowColumns}) from stdin with (format binary)`,
        newRowsAsCopy(datasetId, rows, written, revisions),
      );

/**
 * Inserts an acceptance's observations (each new, decision 0029) by one binary COPY, streamed;
 * `written` hears each document's JSON text as it is encoded.
 */
export const sendObservations = (
  tx: Transaction,
  observations: ReadonlyArray<SourceObservation>,
  written?: (id: string, document: string) => void,
) =>
  observations.length === 0
    ? Effect.succeed(Effect.void)
    : tx.copyFrom(
        "copy observations (id, dataset_id, run_id, document_text) from stdin with (format binary)",
        observationsAsCopy(observations, written),
      );

const appendRevisions = (tx: Transaction, datasetId: string, revisions: ReadonlyArray<NewRevision>) =>
  Effect.gen(function* () {
    const first = yield* Effect.flatten(sendSequenceAllocation(tx, datasetId, revisions.length));
    const [appended] = yield* sendRevisions(tx, datasetId, first, revisions);
    yield* appended;
    return first;
  });

const decodeObservation = storedDecoder(SourceObservation, "PostgreSQL", "observation");

interface PageStateRow {
  readonly revision: number;
  /** bigint: node-postgres hands it over as text. */
  readonly last_sequence: string;
  readonly run_id: string | null;
  readonly run_status: string | null;
}

const decodePageState = storedDecoder(RowsPageState, "PostgreSQL", "rows page state");
const toPageState = (row: PageStateRow) =>
  decodePageState({
    revision: row.revision,
    lastSequence: Number(row.last_sequence),
    newestRun: row.run_id === null ? null : { id: row.run_id, status: row.run_status },
  });

export const makeRowMethods = (db: Db, cache: RowsCache): RowStorage => ({
  loadRows: (datasetId) =>
    !isUuid(datasetId)
      ? Effect.succeed([])
      : cache.enabled
        ? cachedRows(db, cache, datasetId)
        : db
            .query<RowTableRow>(`select ${seenRowColumns} from ${rowsSeen} where r.dataset_id = $1`, [datasetId])
            .pipe(Effect.flatMap(allDecoded(toRow))),

  listRows: (datasetId, { after, since, statuses, limit }) =>
    !isUuid(datasetId)
      ? Effect.succeed([])
      : db
          .query<RowTableRow>(
            `select ${seenRowColumns} from ${rowsSeen}
              where r.dataset_id = $1
                and (cardinality($2::text[]) = 0 or ${seenStatus} = any($2::text[]))
                and ($3::timestamptz is null or r.updated_at >= $3::timestamptz)
                and ($4::timestamptz is null or (r.updated_at, r.id) < ($4::timestamptz, $5::uuid))
              order by r.updated_at desc, r.id desc
              limit $6`,
            [datasetId, statuses, since, after?.updatedAt ?? null, after?.id ?? null, limit],
          )
          .pipe(Effect.flatMap(allDecoded(toRow))),

  getRow: (datasetId, rowId) =>
    !isUuid(datasetId) || !isUuid(rowId)
      ? Effect.succeed(Option.none())
      : db
          .query<RowTableRow>(`select ${seenRowColumns} from ${rowsSeen} where r.dataset_id = $1 and r.id = $2`, [
            datasetId,
            rowId,
          ])
          .pipe(Effect.flatMap(firstDecoded(toRow))),

  // Checks in memory's order (duplicate request, then stale head) under the dataset lock, so the
  // checks and the append see the same state; the unique index still guards a racing request id.
  applyEdit: (row, expectedRevisionId, revision) =>
    db
      .transaction((tx) =>
        Effect.gen(function* () {
          yield* tx.query("select 1 from datasets where id = $1 for no key update", [row.datasetId]);
          if (revision.requestId !== null) {
            const used = yield* tx.query("select 1 from revisions where dataset_id = $1 and request_id = $2", [
              row.datasetId,
              revision.requestId,
            ]);
            if (used.length > 0) return yield* Effect.fail(duplicateRequest());
          }
          const [head] = yield* tx.query<{ revision_id: string | null }>(
            "select revision_id from rows where dataset_id = $1 and id = $2 for no key update",
            [row.datasetId, row.id],
          );
          if (!head || head.revision_id !== expectedRevisionId) return yield* Effect.fail(staleRevision());
          const sequence = yield* appendRevisions(tx, row.datasetId, [revision]);
          yield* upsertRows(tx, row.datasetId, [row], [revision]);
          return { ...revision, sequence } satisfies StoredRevision;
        }),
      )
      .pipe(conflictsOn({ revisions_request_key: duplicateRequest })),

  findRevisionByRequest: (datasetId, requestId) =>
    !isUuid(datasetId)
      ? Effect.succeed(Option.none())
      : db
          .query<RevisionRow>(`select ${revisionColumns} from revisions where dataset_id = $1 and request_id = $2`, [
            datasetId,
            requestId,
          ])
          .pipe(Effect.flatMap(firstDecoded(toRevision))),

  listRevisions: (datasetId, { after, through, limit, rowId, fieldId }) =>
    !isUuid(datasetId) || (rowId !== null && !isUuid(rowId))
      ? Effect.succeed([])
      : db
          .query<RevisionRow>(
            `select ${revisionColumns} from revisions
              where dataset_id = $1 and sequence > $2 and sequence <= $3
                and ($4::uuid is null or row_id = $4::uuid)
                and ($5::text is null or $5::text = any(changed_field_ids))
              order by sequence
              limit $6`,
            [datasetId, after, through, rowId, fieldId, limit],
          )
          .pipe(Effect.flatMap(allDecoded(toRevision))),

  // DISTINCT ON keeps each row's first revision in (row_id, sequence desc) order: its head as of
  // `asOf`; the revisions_row_timeline index serves the scan.
  listRowsAsOf: (datasetId, { asOf, after, limit }) =>
    !isUuid(datasetId) || (after !== null && !isUuid(after))
      ? Effect.succeed([])
      : db
          .query<RevisionRow & { row_key: string }>(
            `select heads.*, rows.row_key from (
               select distinct on (row_id) ${revisionColumns} from revisions
                where dataset_id = $1 and sequence <= $2 and ($3::uuid is null or row_id > $3::uuid)
                order by row_id, sequence desc
             ) heads join rows on rows.id = heads.row_id
              order by heads.row_id
              limit $4`,
            [datasetId, asOf, after, limit],
          )
          .pipe(
            Effect.flatMap((rows) =>
              Effect.forEach(rows, (row) =>
                Effect.map(toRevision(row), (revision) => ({ rowKey: row.row_key, revision })),
              ),
            ),
          ),

  lastSequence: (datasetId) =>
    !isUuid(datasetId)
      ? Effect.succeed(0)
      : db
          .query<{ last_sequence: string }>("select last_sequence from datasets where id = $1", [datasetId])
          .pipe(Effect.map((rows) => Number(rows[0]?.last_sequence ?? 0))),

  // One statement, so the three inputs of the tag come from one snapshot.
  rowsPageState: (ownerId, datasetId) =>
    !isUuid(datasetId) || !isUuid(ownerId)
      ? Effect.succeedNone
      : db
          .query<PageStateRow>(
            `select d.revision, d.last_sequence, newest.id as run_id, newest.status as run_status
               from datasets d
               left join lateral (
                 select id, status from runs
                  where runs.dataset_id = d.id
                  order by queued_at desc, id desc
                  limit 1
               ) newest on true
              where d.id = $1 and d.owner_id = $2`,
            [datasetId, ownerId],
          )
          .pipe(Effect.flatMap(firstDecoded(toPageState))),

  // In the order asked, a repeated id repeated, unknown ids left out (as memory's flatMap does).
  getObservations: (ids) => {
    const wanted = ids.filter(isUuid);
    return wanted.length === 0
      ? Effect.succeed([])
      : db
          .query<{ document: string }>(
            `select ${observationDocument} as document from unnest($1::uuid[]) with ordinality as wanted(id, position)
               join observations o on o.id = wanted.id
              order by wanted.position`,
            [wanted],
          )
          .pipe(Effect.flatMap((rows) => Effect.forEach(rows, (row) => decodeObservation(parsedJson(row.document)))));
  },
});
