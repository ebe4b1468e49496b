import { type Conflict, conflicts, StorageFailure } from "@gleaner/core";
import { Effect, Exit } from "effect";
import type pg from "pg";

/** Something that runs SQL: the pool, or one client inside a transaction. */
export interface Sql {
  readonly query: <R extends pg.QueryResultRow = Record<string, unknown>>(
    text: string,
    values?: ReadonlyArray<unknown>,
  ) => Effect.Effect<ReadonlyArray<R>, StorageFailure>;
}

export interface Db extends Sql {
  /**
   * Runs `work` on one connection between BEGIN and COMMIT; any failure (or interruption) rolls
   * back. Success values commit, including "nothing to do" outcomes: they wrote nothing.
   */
  readonly transaction: <A, E>(work: (tx: Sql) => Effect.Effect<A, E>) => Effect.Effect<A, E | StorageFailure>;
}

/** Driver errors become StorageFailure with the driver error kept as `cause` (hosts never show it). */
export const storageFailure =
  (operation: string) =>
  (cause: unknown): StorageFailure =>
    new StorageFailure({
      message: `PostgreSQL: ${operation} failed: ${cause instanceof Error ? cause.message : String(cause)}`,
      cause,
    });

const sqlOf = (client: pg.Pool | pg.PoolClient): Sql => ({
  query: <R extends pg.QueryResultRow>(text: string, values?: ReadonlyArray<unknown>) =>
    Effect.tryPromise({
      try: () => client.query<R>(text, values as unknown[] | undefined),
      catch: storageFailure(firstWords(text)),
    }).pipe(Effect.map((result) => result.rows)),
});

/** "insert into rows" from a statement, to say which one failed without echoing parameters. */
const firstWords = (text: string): string => text.trim().split(/\s+/).slice(0, 3).join(" ");

export const makeDb = (pool: pg.Pool): Db => ({
  ...sqlOf(pool),
  transaction: <A, E>(work: (tx: Sql) => Effect.Effect<A, E>) =>
    Effect.acquireUseRelease(
      Effect.tryPromise({ try: () => pool.connect(), catch: storageFailure("connect") }),
      (client) => {
        const tx = sqlOf(client);
        return tx.query("begin").pipe(
          Effect.zipRight(work(tx)),
          Effect.tap(() => tx.query("commit")),
        );
      },
      (client, exit) =>
        Effect.promise(async () => {
          if (Exit.isSuccess(exit)) return client.release();
          // After a failed statement or commit the transaction is aborted; ROLLBACK ends it. If even
          // that fails the connection is suspect: release it with the error so the pool discards it.
          try {
            await client.query("rollback");
            client.release();
          } catch (error) {
            client.release(error instanceof Error ? error : new Error(String(error)));
          }
        }),
    ),
});

/** The unique constraint a failure violated (SQLSTATE 23505), if that is what it was. */
const violatedUnique = (failure: StorageFailure): string | undefined => {
  const cause = failure.cause as { code?: unknown; constraint?: unknown } | undefined;
  return cause?.code === "23505" && typeof cause.constraint === "string" ? cause.constraint : undefined;
};

/**
 * Turns unique violations of the named constraints into the port's Conflicts; every other failure
 * passes through. The conflicts themselves are core's (`conflicts`), worded once for every store.
 */
export const conflictsOn =
  (byConstraint: Readonly<Record<string, () => Conflict>>) =>
  <A, E>(self: Effect.Effect<A, E>): Effect.Effect<A, E | Conflict> =>
    Effect.mapError(self, (error): E | Conflict => {
      if (!(error instanceof StorageFailure)) return error;
      const constraint = violatedUnique(error);
      const conflict = constraint === undefined ? undefined : byConstraint[constraint];
      return conflict ? conflict() : error;
    });

// Thunks for conflictsOn(): built when a unique constraint fires, worded once in core.
export const nameTaken = (name: string) => () => conflicts.nameTaken(name);
export const ownerExists = (name: string) => () => conflicts.ownerExists(name);
export const { staleDataset, runInProgress, duplicateRequest, staleRevision } = conflicts;

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/**
 * Ids are uuid columns: a lookup by a string that is not a (lowercase, canonical) UUID finds
 * nothing, as in the memory store, instead of failing with "invalid input syntax for type uuid".
 */
export const isUuid = (value: string): boolean => uuidPattern.test(value);

/** timestamptz comes back as a Date; the port speaks ISO 8601 with milliseconds. */
export const iso = (value: Date): string => value.toISOString();
export const isoOrNull = (value: Date | null): string | null => (value === null ? null : value.toISOString());
