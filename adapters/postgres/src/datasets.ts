import {
  Routine,
  DatasetRecord,
  type DatasetStorage,
  Owner,
  type StorageFailure,
  StoredDataset,
  storedDecoder,
} from "@gleaner/core";
import * as Effect from "effect/Effect";
import type * as Option from "effect/Option";
import {
  allDecoded,
  conflictsOn,
  type Db,
  firstDecoded,
  isUuid,
  iso,
  isoOrNull,
  nameTaken,
  ownerExists,
  staleDataset,
  type TableRow,
  tableMapping,
} from "./db.js";

interface OwnerRow {
  readonly id: string;
  readonly name: string;
  readonly created_at: Date;
}

// Every read is decoded with core's schemas (see records.ts): a stored value they refuse fails the read.
const decodeOwner = storedDecoder(Owner, "PostgreSQL", "owner");
const toOwner = (row: OwnerRow) => decodeOwner({ id: row.id, name: row.name, createdAt: iso(row.created_at) });

export const datasetTable = tableMapping<DatasetRecord>({
  id: ["uuid", (d) => d.id],
  owner_id: ["uuid", (d) => d.ownerId],
  name: ["text", (d) => d.name],
  question: ["text", (d) => d.question],
  columns: ["jsonb", (d) => d.columns],
  schema_version: ["integer", (d) => d.schemaVersion],
  status: ["text", (d) => d.status],
  schedule: ["text", (d) => d.schedule],
  schedule_state: ["jsonb", (d) => d.scheduleState],
  bot_id: ["text", (d) => d.botId],
  recipes: ["jsonb", (d) => d.recipes],
  schemas: ["jsonb", (d) => d.schemas],
  created_at: ["timestamptz", (d) => d.createdAt],
  updated_at: ["timestamptz", (d) => d.updatedAt],
  revision: ["integer", (d) => d.revision],
});

/**
 * A dataset with the figures shown beside it, computed at read time exactly as the memory store
 * does: rowCount counts every current row (gone ones included, they are listed too) and lastRun is
 * the newest run by queuedAt desc, id desc, whatever its status.
 */
const selectStoredDataset = `
  select d.*,
         (select count(*)::int from rows r where r.dataset_id = d.id) as row_count,
         last_run.id as last_run_id, last_run.status as last_run_status,
         last_run.completed_at as last_run_completed_at
    from datasets d
    left join lateral (
      select id, status, completed_at from runs
       where runs.dataset_id = d.id
       order by queued_at desc, id desc
       limit 1
    ) last_run on true`;

const decodeRoutine = storedDecoder(Routine, "PostgreSQL", "routine");
const decodeDataset = storedDecoder(StoredDataset, "PostgreSQL", "dataset");
const decodeDatasetRecord = storedDecoder(DatasetRecord, "PostgreSQL", "dataset");

const recordOf = (row: TableRow) => ({
  id: row.id,
  ownerId: row.owner_id,
  name: row.name,
  question: row.question,
  columns: row.columns,
  schemaVersion: row.schema_version,
  status: row.status,
  schedule: row.schedule,
  scheduleState: row.schedule_state,
  botId: row.bot_id,
  recipes: row.recipes,
  schemas: row.schemas,
  createdAt: iso(row.created_at),
  updatedAt: iso(row.updated_at),
  revision: row.revision,
});

/**
 * A dataset's own columns selected beside another table's, each renamed `ds_<column>` (a run's dataset_id stays the run's); read the
 * row back with `toPrefixedDatasetRecord` (none when the join found no dataset).
 */
export const prefixedDatasetColumns = (alias: string): string =>
  datasetTable.names.map((field) => `${alias}.${field} as ds_${field}`).join(", ");

export const toPrefixedDatasetRecord = (
  row: Readonly<Record<string, unknown>>,
): Effect.Effect<Option.Option<DatasetRecord>, StorageFailure> =>
  row.ds_id === null || row.ds_id === undefined
    ? Effect.succeedNone
    : Effect.asSome(
        decodeDatasetRecord(
          recordOf(Object.fromEntries(datasetTable.names.map((field) => [field, row[`ds_${field}`]]))),
          String(row.ds_id),
        ),
      );

const toStoredDataset = (row: TableRow) =>
  decodeDataset(
    {
      record: recordOf(row),
      rowCount: row.row_count,
      lastRun:
        row.last_run_id === null || row.last_run_status === null
          ? null
          : {
              id: row.last_run_id,
              status: row.last_run_status,
              completedAt: isoOrNull(row.last_run_completed_at),
            },
    },
    row.id,
  );

export const makeDatasetMethods = (
  db: Db,
): Omit<
  DatasetStorage,
  "deleteDataset" | "addApiKey" | "findApiKey" | "listApiKeys" | "revokeApiKey" | "markApiKeyUsed"
> => ({
  createOwner: (owner) =>
    db
      .query("insert into owners (id, name, created_at) values ($1, $2, $3)", [owner.id, owner.name, owner.createdAt])
      .pipe(Effect.asVoid, conflictsOn({ owners_name_key: ownerExists(owner.name) })),

  findOwnerByName: (name) =>
    db
      .query<OwnerRow>("select id, name, created_at from owners where name = $1", [name])
      .pipe(Effect.flatMap(firstDecoded(toOwner))),

  // One statement, so the dataset with its bot, recipe v1 and schema v1 is stored whole or not at all.
  insertDataset: (record) => {
    const batch = datasetTable.batch([record], "$1");
    return db
      .query(`insert into datasets (${datasetTable.list}) ${batch.select}`, [batch.value])
      .pipe(Effect.asVoid, conflictsOn({ datasets_owner_name_key: nameTaken(record.name) }));
  },

  getDataset: (ownerId, id) =>
    !isUuid(id) || !isUuid(ownerId)
      ? Effect.succeedNone
      : db
          .query(`${selectStoredDataset} where d.id = $1 and d.owner_id = $2`, [id, ownerId])
          .pipe(Effect.flatMap(firstDecoded(toStoredDataset))),

  listDatasets: (ownerId, { after, limit }) =>
    !isUuid(ownerId)
      ? Effect.succeed([])
      : db
          .query(
            `${selectStoredDataset}
              where d.owner_id = $1
                and ($2::timestamptz is null or (d.created_at, d.id) < ($2::timestamptz, $3::uuid))
              order by d.created_at desc, d.id desc
              limit $4`,
            [ownerId, after?.createdAt ?? null, after?.id ?? null, limit],
          )
          .pipe(Effect.flatMap(allDecoded(toStoredDataset))),

  // Compare-and-set on revision: zero rows updated means another update won (or the dataset is gone).
  updateDataset: (next) => {
    const batch = datasetTable.batch([next], "$1");
    return db
      .query(
        `update datasets d set ${datasetTable.updates(["id"])}
           from (${batch.select}) as excluded
          where d.id = excluded.id and d.revision = excluded.revision - 1
          returning d.id`,
        [batch.value],
      )
      .pipe(
        conflictsOn({ datasets_owner_name_key: nameTaken(next.name) }),
        Effect.flatMap((rows) => (rows.length === 0 ? Effect.fail(staleDataset()) : Effect.void)),
      );
  },

  // Oldest dataset first: the memory store answers in insertion order.
  listActiveRoutines: () =>
    db
      .query<{ id: string; owner_id: string; cron: string }>(
        `select id, owner_id, schedule_state->>'cron' as cron from datasets
          where schedule_state->>'status' = 'active'
          order by created_at, id`,
      )
      .pipe(
        Effect.flatMap(
          allDecoded((row) => decodeRoutine({ datasetId: row.id, ownerId: row.owner_id, cron: row.cron })),
        ),
      ),
});
