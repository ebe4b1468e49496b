import {
  getCreateIndexesSQL,
  getCreateTableSQL,
  getUpdateTimestampTriggerSQL,
  PostgresBackend,
} from "@agendajs/postgres-backend";
import { schemaSetupLockKey, sha256HexOf } from "@gleaner/core";
import pg from "pg";
import type { AgendaPostgresConfig } from "./config.js";
import { routineJob, runJob } from "./job-names.js";

const identifier = /^[a-z_][a-z0-9_]{0,47}$/;

const checkedName = (what: string, name: string): string => {
  if (!identifier.test(name)) {
    throw new Error(`The Agenda ${what} "${name}" must be lower-case letters, digits and _ (at most 48).`);
  }
  return name;
};

export interface PreparedPostgres {
  readonly backend: PostgresBackend;
  readonly close: () => Promise<void>;
  readonly waitingRuns: (ownerId: string) => Promise<number>;
}

/**
 * Creates the jobs table once, under a transaction-scoped advisory lock: two Agenda backends
 * racing their own ensureSchema on a fresh database fail on a duplicate pg_type key, so the
 * backend itself always runs with ensureSchema: false. Besides Agenda's table and indexes it adds
 * one unique index of ours: at most one routine job per dataset, whatever processes race.
 */
const ensureSchema = async (pool: pg.Pool, schema: string, table: string): Promise<void> => {
  const client = await pool.connect();
  const dropped = (): void => undefined; // the next statement fails and reports it
  client.on("error", dropped);
  try {
    await client.query("begin");
    // Core's schema setup lock, the one @gleaner/postgres migrates under: the two share the schema.
    await client.query("select pg_advisory_xact_lock($1::bigint)", [await schemaSetupLockKey(schema)]);
    await client.query(`create schema if not exists "${schema}"`);
    await client.query(getCreateTableSQL(table));
    for (const sql of getCreateIndexesSQL(table)) await client.query(sql);
    await client.query(getUpdateTimestampTriggerSQL(table));
    await client.query(
      `create unique index if not exists "${table}_one_routine_per_dataset"
         on "${table}" ((data->>'datasetId')) where name = '${routineJob}'`,
    );
    await client.query("commit");
  } catch (error) {
    await client.query("rollback").catch(() => undefined);
    throw error;
  } finally {
    client.off("error", dropped);
    client.release();
  }
};

/**
 * Agenda's PostgreSQL backend over a pool we own (so releasing the layer ends it even when Agenda
 * was stopped earlier), every connection pinned to `schema`, the NOTIFY channel named after the
 * schema and table (hashed: channel names are identifiers of at most 63 bytes) so two
 * deployments sharing a database never wake each other.
 */
export const preparePostgres = async (config: AgendaPostgresConfig): Promise<PreparedPostgres> => {
  const schema = checkedName("schema", config.schema ?? "gleaner");
  const table = checkedName("table", config.tableName ?? "agenda_jobs");
  const pool = new pg.Pool({
    connectionString: config.url,
    max: config.poolSize ?? 5,
    // Bounded like the store's (decision 0041): a partition fails an enqueue within seconds (503),
    // it never holds the request that asked for it.
    connectionTimeoutMillis: 5_000,
    query_timeout: 8_000,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    options: `-c search_path=${schema} -c idle_in_transaction_session_timeout=60000`,
    application_name: "gleaner-agenda",
  });
  // A connection the server drops emits "error" on the pool; unhandled it would end the process.
  pool.on("error", () => undefined);
  try {
    if (config.ensureSchema !== false) await ensureSchema(pool, schema, table);
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw error;
  }
  const backend = new PostgresBackend({
    pool,
    tableName: table,
    channelName: `gleaner_agenda_${(await sha256HexOf(`${schema}.${table}`)).slice(0, 16)}`,
    ensureSchema: false,
  });
  const waitingRuns = async (ownerId: string): Promise<number> => {
    const result = await pool.query<{ n: number }>(
      `select count(*)::int as n from "${table}" where name = $1 and locked_at is null and data->>'ownerId' = $2`,
      [runJob, ownerId],
    );
    return result.rows[0]?.n ?? 0;
  };
  return { backend, close: () => pool.end(), waitingRuns };
};
