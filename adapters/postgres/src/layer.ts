import { makeDeleteDataset } from "./delete-dataset.js";
import { makeKeyMethods } from "./keys.js";
import { makePruneRunRecords } from "./retention.js";
import { Credits, Storage, type StorageFailure, type StorageService } from "@gleaner/core";
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as Runtime from "effect/Runtime";
import * as Layer from "effect/Layer";
import pg from "pg";
import { makeCredits } from "./credits.js";
import { makeDatasetMethods } from "./datasets.js";
import { makeDb, storageFailure } from "./db.js";
import { applyMigrations, assertSchemaName, loadMigrations } from "./migrate.js";
import { makeRowMethods } from "./rows.js";
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
   * How long one statement may go unanswered (default 8 s): past it the statement fails as the
   * database being unavailable (503) and its connection is discarded, so a network partition, which
   * sends no reset, cannot hold a request or a run (decision 0041).
   */
  readonly queryTimeoutMs?: number;
  /** How long to wait for a connection, from the pool or a new one (default 5 s). */
  readonly connectTimeoutMs?: number;
}

/** With the defaults a request's first statement fails within 5 s + 8 s of a partition: under 15 s. */
export const defaultQueryTimeoutMs = 8_000;
export const defaultConnectTimeoutMs = 5_000;

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
              connectionTimeoutMillis: config.connectTimeoutMs ?? defaultConnectTimeoutMs,
              query_timeout: config.queryTimeoutMs ?? defaultQueryTimeoutMs,
              // A peer gone without a word is noticed by TCP too, and the server ends a transaction
              // its client left open (a partitioned host's), so its row locks do not outlive it.
              keepAlive: true,
              keepAliveInitialDelayMillis: 10_000,
              // Every connection resolves unqualified names in our schema: the SQL never names it.
              options: `-c search_path=${schema} -c idle_in_transaction_session_timeout=60000`,
              application_name: "gleaner",
              // Statements go out as they are sent (db.ts): a transaction's writes overlap its encoding.
              pipeline: true,
            }),
        ),
        (pool) => Effect.promise(() => pool.end()),
      );
      // An idle connection dropped by the server emits "error" on the pool; unhandled it would
      // crash the process. The pool discards that connection and the next query reconnects; the
      // log names the cause so an operator sees why requests answered 503 meanwhile.
      // Logged through the layer's own runtime, so the host's logger (pino, its level) hears it.
      const runtime = yield* Effect.runtime<never>();
      let errors = 0;
      pool.on("error", (error) => {
        errors++;
        Runtime.runFork(runtime)(Effect.logWarning(`PostgreSQL: an idle connection was lost: ${error.message}`));
      });
      yield* Effect.tryPromise({
        try: async () => applyMigrations(pool, schema, await loadMigrations()),
        catch: storageFailure(`migrating ${describeTarget(config.url)} (schema ${schema})`),
      });
      const db = makeDb(pool, () => {
        errors++;
      });
      const storage: StorageService = {
        ...makeDatasetMethods(db),
        ...makeDeleteDataset(db),
        ...makeKeyMethods(db),
        ...makePruneRunRecords(db),
        ...makeRunMethods(db),
        ...makeRowMethods(db),
        ...makeWebhookMethods(db),
        connectionPool: () => ({
          open: pool.totalCount,
          idle: pool.idleCount,
          waiting: pool.waitingCount,
          errors,
        }),
      };
      return Context.make(Storage, storage).pipe(Context.add(Credits, makeCredits(db)));
    }),
  );
