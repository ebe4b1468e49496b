import {
  type NewRevision,
  type RowRecord,
  RowsPageState,
  type RowStorage,
  SourceObservation,
  StorageFailure,
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
  recordset,
  sendBatches,
  type Sql,
  staleRevision,
} from "./db.js";
import { revisionTable, rowsSeen, rowsSeenColumns, rowTable, seenStatus, toRevision, toRow } from "./records.js";

// Rows, revisions and observations: each table has one write below, used by acceptRun and applyEdit
// alike. Each sends its statement (`Sql.send`) and answers the Effect awaiting it.

/** Inserts or replaces rows, each with its whole state. A row listed twice keeps its last version, as Map.set does. */
export const sendRows = (
  tx: Sql,
  rows: ReadonlyArray<RowRecord>,
): Effect.Effect<Effect.Effect<void, StorageFailure>, StorageFailure> => {
  const last = [...new Map(rows.map((row) => [row.id, row])).values()];
  return last.length === 0
    ? Effect.succeed(Effect.void)
    : sendBatches(
        tx,
        rowTable.batches(last, "$1"),
        (select) =>
          `insert into rows (${rowTable.list}) ${select} on conflict (id) do update set ${rowTable.updates(["id"])}`,
      );
};

/**
 * Appends revisions with the next sequences of the dataset's counter: answers the first and the
 * Effect awaiting the insert. The counter's UPDATE locks the dataset row until commit, so concurrent
 * writers get consecutive, gapless blocks, and a rollback gives the numbers back.
 */
export const sendRevisions = (tx: Sql, datasetId: string, revisions: ReadonlyArray<NewRevision>) =>
  Effect.gen(function* () {
    if (revisions.length === 0) return { first: 0, written: Effect.void };
    const [allocated] = yield* tx.query<{ last_sequence: string }>(
      "update datasets set last_sequence = last_sequence + $2 where id = $1 returning last_sequence",
      [datasetId, revisions.length],
    );
    if (allocated === undefined) {
      return yield* new StorageFailure({
        message: `PostgreSQL: revisions for dataset ${datasetId}, which does not exist.`,
      });
    }
    const first = Number(allocated.last_sequence) - revisions.length + 1;
    const written = yield* sendBatches(
      tx,
      revisionTable.batches(
        revisions.map((revision, i) => ({ ...revision, sequence: first + i })),
        "$1",
      ),
      (select) => `insert into revisions (${revisionTable.list}) ${select}`,
    );
    return { first, written };
  });

/** Inserts observations, each new; the document is kept whole as its JSON text (migration 0017). */
export const sendObservations = (tx: Sql, observations: ReadonlyArray<SourceObservation>) =>
  observations.length === 0
    ? Effect.succeed(Effect.void)
    : tx
        .send(
          `insert into observations (id, dataset_id, run_id, document_text)
           select o.id, o.dataset_id, o.run_id, o.document
             from json_to_recordset($1::json) as o(id uuid, dataset_id uuid, run_id uuid, document text)`,
          [
            recordset(
              observations.map((o) => ({
                id: o.id,
                dataset_id: o.datasetId,
                run_id: o.runId,
                document: JSON.stringify(o),
              })),
            ),
          ],
        )
        .pipe(Effect.map(Effect.asVoid));

const decodeObservation = storedDecoder(SourceObservation, "PostgreSQL", "observation");

/** An observation's JSON text read back; text that is not JSON (a hand-made row) goes to the decoder as it is, which refuses it. */
const toObservation = (text: string) => {
  let document: unknown = text;
  try {
    document = JSON.parse(text);
  } catch {}
  return decodeObservation(document);
};

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

export const makeRowMethods = (db: Db): RowStorage => ({
  loadRows: (datasetId) =>
    !isUuid(datasetId)
      ? Effect.succeed([])
      : db
          .query(`select ${rowsSeenColumns} from ${rowsSeen} where r.dataset_id = $1`, [datasetId])
          .pipe(Effect.flatMap(allDecoded(toRow))),

  listRows: (datasetId, { after, since, statuses, limit }) =>
    !isUuid(datasetId)
      ? Effect.succeed([])
      : db
          .query(
            `select ${rowsSeenColumns} from ${rowsSeen}
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
          .query(`select ${rowsSeenColumns} from ${rowsSeen} where r.dataset_id = $1 and r.id = $2`, [datasetId, rowId])
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
            "select revision_id from rows where dataset_id = $1 and id = $2",
            [row.datasetId, row.id],
          );
          if (!head || head.revision_id !== expectedRevisionId) return yield* Effect.fail(staleRevision());
          const { first, written } = yield* sendRevisions(tx, row.datasetId, [revision]);
          yield* written;
          yield* Effect.flatten(sendRows(tx, [row]));
          return { ...revision, sequence: first } satisfies StoredRevision;
        }),
      )
      .pipe(conflictsOn({ revisions_request_key: duplicateRequest })),

  findRevisionByRequest: (datasetId, requestId) =>
    !isUuid(datasetId)
      ? Effect.succeed(Option.none())
      : db
          .query("select * from revisions where dataset_id = $1 and request_id = $2", [datasetId, requestId])
          .pipe(Effect.flatMap(firstDecoded(toRevision))),

  listRevisions: (datasetId, { after, through, limit, rowId, fieldId }) =>
    !isUuid(datasetId) || (rowId !== null && !isUuid(rowId))
      ? Effect.succeed([])
      : db
          .query(
            `select * from revisions
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
          .query<{ row_key: string }>(
            `select heads.*, rows.row_key from (
               select distinct on (row_id) * from revisions
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
            `select o.document_text as document from unnest($1::uuid[]) with ordinality as wanted(id, position)
               join observations o on o.id = wanted.id
              order by wanted.position`,
            [wanted],
          )
          .pipe(Effect.flatMap((rows) => Effect.forEach(rows, (row) => toObservation(row.document))));
  },
});
