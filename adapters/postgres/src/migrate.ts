import { readdir, readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { schemaSetupLockKey, sha256HexOf } from "@gleaner/core";
import type pg from "pg";

/** One versioned SQL file, `NNNN_name.sql`. */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
  /** sha256 of the file: an applied migration edited afterwards is refused, not silently skipped. */
  readonly checksum: string;
}

/**
 * The migrations shipped with this package (next to src/ and dist/, listed in package.json files). Found
 * from the package's own entry, not from this module's URL: the `gleaner` CLI runs from a bundle in
 * @gleaner/koa's dist/, where this module's URL is a chunk's.
 */
export const bundledMigrationsDir = join(
  dirname(createRequire(import.meta.url).resolve("@gleaner/postgres")),
  "../migrations",
);

const fileName = /^(\d{4})_([a-z0-9_]+)\.sql$/;

/** Reads a migrations folder in version order; a stray .sql name or a repeated version is an error. */
export const loadMigrations = async (dir: string = bundledMigrationsDir): Promise<ReadonlyArray<Migration>> => {
  const names = (await readdir(dir)).filter((name) => name.endsWith(".sql")).sort();
  const migrations: Migration[] = [];
  for (const name of names) {
    const match = fileName.exec(name);
    if (!match) throw new Error(`Migration file "${name}" is not named NNNN_name.sql.`);
    const version = Number(match[1]);
    if (migrations.some((m) => m.version === version)) throw new Error(`Two migrations have version ${version}.`);
    const sql = await readFile(join(dir, name), "utf8");
    migrations.push({ version, name: match[2] ?? name, sql, checksum: await sha256HexOf(sql) });
  }
  return migrations;
};

const schemaName = /^[a-z_][a-z0-9_]{0,62}$/;

/** Schema names are interpolated into SQL (identifiers cannot be parameters), so only plain ones pass. */
export const assertSchemaName = (schema: string): string => {
  if (!schemaName.test(schema)) {
    throw new Error(`PostgreSQL schema "${schema}" must match ${schemaName} (lowercase letters, digits, _).`);
  }
  return schema;
};

export interface MigrationReport {
  /** Versions applied by this call (empty when the schema was already current). */
  readonly applied: ReadonlyArray<number>;
}

/**
 * Brings `schema` up to date: creates it when missing, then applies the pending migrations in
 * version order, all in one transaction under a transaction-level advisory lock. A second process
 * starting at the same moment waits on the lock, then finds every version recorded and applies
 * nothing; a crash mid-way rolls back and releases the lock with the connection.
 *
 * Versions recorded in the database but unknown to this build are tolerated (an older process
 * during a rolling deploy); a recorded version whose file changed is refused.
 */
export const applyMigrations = async (
  pool: pg.Pool,
  schema: string,
  migrations: ReadonlyArray<Migration>,
): Promise<MigrationReport> => {
  const ident = `"${assertSchemaName(schema)}"`;
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query("begin");
    await client.query("select pg_advisory_xact_lock($1::bigint)", [await schemaSetupLockKey(schema)]);
    await client.query(`create schema if not exists ${ident}`);
    await client.query(`set local search_path to ${ident}`);
    await client.query(
      `create table if not exists schema_migrations (
         version integer primary key,
         name text not null,
         checksum text not null,
         applied_at timestamptz not null default now()
       )`,
    );
    const recorded = await client.query<{ version: number; checksum: string }>(
      "select version, checksum from schema_migrations",
    );
    const checksums = new Map(recorded.rows.map((row) => [row.version, row.checksum]));
    const applied: number[] = [];
    for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
      const checksum = checksums.get(migration.version);
      if (checksum !== undefined) {
        if (checksum !== migration.checksum) {
          throw new Error(
            `Migration ${migration.version} (${migration.name}) was applied with different contents; ` +
              "never edit an applied migration, add a new one.",
          );
        }
        continue;
      }
      await client.query(migration.sql);
      await client.query("insert into schema_migrations (version, name, checksum) values ($1, $2, $3)", [
        migration.version,
        migration.name,
        migration.checksum,
      ]);
      applied.push(migration.version);
    }
    await client.query("commit");
    return { applied };
  } catch (error) {
    await client.query("rollback").catch((rollbackError: unknown) => {
      broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
    });
    throw error;
  } finally {
    // A connection whose ROLLBACK failed is discarded rather than returned to the pool.
    client.release(broken);
  }
};
