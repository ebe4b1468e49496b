import { Credits, Storage, type StorageFailure, type StorageService } from "@gleaner/core";
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import pg from "pg";
import { makeCredits } from "./credits.js";
import { makeDatasetMethods } from "./datasets.js";
import { makeDb, storageFailure } from "./db.js";
import { applyMigrations, assertSchemaName, loadMigrations } from "./migrate.js";
import { makeRowMethods } from "./rows.js";
import { makeRowsCache, type RowsCacheConfig } from "./rows-cache.js";
import { makeContentCache } from "./content-cache.js";
import { makeRunMethods } from "./runs.js";
import { makeWebhookMethods } from "./webhooks.js";

export interface PostgresConfig {
  /** A libpq connection URL, e.g. postgres://user:password@host:5432/database. */
  readonly url: string;
  /** Connections in the pool (default 10). */
  readonly poolSize?: number;
  /** The PostgreSQL schema holding Gleaner's tables (default "gleaner"); created when missing. */
  readonly schema?: string;
  /**
   * Decoded rows kept in this process between runs (decision 0035): at most `rows` across datasets
   * (default 20 000; 0 keeps none), each used only while the database says its rows are unchanged.
   * `verify` reads them again on every use and fails on a difference (for tests).
   */
  readonly rowCache?: RowsCacheConfig;
  /**
   * Megabytes of page bodies, observations and page records kept in this process for re-runs to
   * reuse (decision 0035; default 32, 0 keeps none). Each is immutable under its key.
   */
  readonly pageCacheMegabytes?: number;
}

/** Rows a process keeps by default (~1.9 KB of heap each on the books dataset; wider rows take more). */
export const defaultRowCacheRows = 20_000;
/** Megabytes of kept-read content a process keeps by default (~4 MB per 50-page books run). */
export const defaultPageCacheMegabytes = 32;

/** Where a URL points, for error messages: never the password. */
const describeTarget = (url: string): string => {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || "5432"}${parsed.pathname}`;
  } catch {
    return "the configured URL";
  }
};

/**
 * Storage and Credits on one PostgreSQL database. Building the layer opens the pool and brings
 * the schema up to date (versioned SQL migrations, see migrate.ts); releasing it ends the pool.
 * Nothing connects on import.
 */
export const PostgresStoreLive = (config: PostgresConfig): Layer.Layer<Storage | Credits, StorageFailure> =>
  Layer.scopedContext(
    Effect.gen(function* () {
      const schema = yield* Effect.try({
        try: () => assertSchemaName(config.schema ?? "gleaner"),
        catch: storageFailure("configuration"),
      });
      const pool = yield* Effect.acquireRelease(
        Effect.sync(
          () =>
            new pg.Pool({
              connectionString: config.url,
              max: config.poolSize ?? 10,
              connectionTimeoutMillis: 10_000,
              // Every connection resolves unqualified names in our schema: the SQL never names it.
              options: `-c search_path=${schema}`,
              application_name: "gleaner",
            }),
        ),
        (pool) => Effect.promise(() => pool.end()),
      );
      // An idle connection dropped by the server emits "error" on the pool; unhandled it would
      // crash the process. The pool discards that connection and the next query reconnects; the
      // log names the cause so an operator sees why requests answered 503 meanwhile.
      pool.on("error", (error) => {
        Effect.runFork(Effect.logWarning(`PostgreSQL: an idle connection was lost: ${error.message}`));
      });
      yield* Effect.tryPromise({
        try: async () => applyMigrations(pool, schema, await loadMigrations()),
        catch: storageFailure(`migrating ${describeTarget(config.url)} (schema ${schema})`),
      });
      const db = makeDb(pool);
      const cache = makeRowsCache(config.rowCache ?? { rows: defaultRowCacheRows });
      const content = makeContentCache(config.pageCacheMegabytes ?? defaultPageCacheMegabytes);
      const storage: StorageService = {
        ...makeDatasetMethods(db),
        ...makeRunMethods(db, cache, content),
        ...makeRowMethods(db, cache),
        ...makeWebhookMethods(db),
      };
      return Context.make(Storage, storage).pipe(Context.add(Credits, makeCredits(db)));
    }),
  );
