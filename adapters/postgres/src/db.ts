import { type Conflict, conflicts, isCanonicalUuid, StorageFailure } from "@gleaner/core";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import type * as Option from "effect/Option";
import type pg from "pg";
import { streamCopy } from "./copy-stream.js";

/** Something that runs SQL: the pool, or one client inside a transaction. */
export interface Sql {
  readonly query: <R extends pg.QueryResultRow = Record<string, unknown>>(
    text: string,
    values?: ReadonlyArray<unknown>,
  ) => Effect.Effect<ReadonlyArray<R>, StorageFailure>;
}

/**
 * One transaction's connection, which can also send statements ahead: only a transaction's writes
 * are large enough to encode one while the server runs another, and only there is their order one
 * connection's.
 */
export interface Transaction extends Sql {
  /**
   * Sends a statement and answers the Effect that awaits its rows, so the host can encode the next
   * statement's parameters while the server executes this one. On a transaction's connection the
   * statements still run one after another in the order sent. Every sent statement must be awaited
   * (or the transaction fail): a failure aborts the transaction, so the statements sent after it
   * fail too and the transaction rolls back whole.
   */
  readonly send: <R extends pg.QueryResultRow = Record<string, unknown>>(
    text: string,
    values?: ReadonlyArray<unknown>,
  ) => Effect.Effect<Effect.Effect<ReadonlyArray<R>, StorageFailure>>;
  /**
   * Sends `copy … from stdin` in the connection's order and streams `chunks` into it as they are
   * encoded (each `next()` may encode; in the statement's format, an acceptance writes binary,
   * copy-binary.ts), letting I/O run between two chunks: the server reads and writes the first ones
   * while the host encodes the rest, and a statement sent before it still runs first. Chunks written
   * before the server is ready for them wait in the stream. Answers, once every chunk is written,
   * the Effect awaiting the server's acknowledgement, like `send`. A chunk that fails to encode is a
   * StorageFailure: the COPY is failed at the server (never left waiting for data) and the
   * transaction with it (copy-stream.ts).
   */
  readonly copyFrom: (
    text: string,
    chunks: Iterable<Buffer>,
  ) => Effect.Effect<Effect.Effect<void, StorageFailure>, StorageFailure>;
}

export interface Db extends Sql {
  /**
   * Runs `work` on one connection between BEGIN and COMMIT; any failure (or interruption) rolls
   * back. Success values commit, including "nothing to do" outcomes: they wrote nothing.
   */
  readonly transaction: <A, E>(work: (tx: Transaction) => Effect.Effect<A, E>) => Effect.Effect<A, E | StorageFailure>;
}

/**
 * SQLSTATE classes and codes that mean "the server is not there for us right now": connection
 * exceptions (08), operator intervention (57P01 terminated by administrator, 57P02 crash shutdown,
 * 57P03 cannot connect now), too many connections (53300), and a database closed to connections
 * (55000 is a generic code, so its message is what tells), besides socket errors and pg's own words.
 */
const unavailableCodes = new Set(["57P01", "57P02", "57P03", "53300", "53400"]);
const unavailableSocketCodes = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EHOSTUNREACH",
]);
const unavailableMessage =
  /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|not currently accepting connections|the database system is (starting up|shutting down|in recovery mode)|Client was closed|Query read timeout/i;

/** Whether a driver error means the database is unreachable now (503) rather than a fault (500). */
export const isUnavailable = (cause: unknown): boolean => {
  const error = cause as { code?: unknown; message?: unknown } | null | undefined;
  const code = typeof error?.code === "string" ? error.code : "";
  if (code.startsWith("08") || unavailableCodes.has(code) || unavailableSocketCodes.has(code)) return true;
  return typeof error?.message === "string" && unavailableMessage.test(error.message);
};

/** Driver errors become StorageFailure with the driver error kept as `cause` (hosts never show it). */
export const storageFailure =
  (operation: string) =>
  (cause: unknown): StorageFailure =>
    new StorageFailure({
      message: `PostgreSQL: ${operation} failed: ${cause instanceof Error ? cause.message : String(cause)}`,
      cause,
      unavailable: isUnavailable(cause),
    });

const sqlOf = (client: pg.Pool): Sql => ({
  query: <R extends pg.QueryResultRow>(text: string, values?: ReadonlyArray<unknown>) =>
    Effect.tryPromise({
      try: () => client.query<R>(prepared(text, values)),
      catch: storageFailure(firstWords(text)),
    }).pipe(Effect.map((result) => result.rows)),
});

/** The Effect awaiting a statement already sent; until it is awaited a rejection is not unhandled. */
const awaitSent = <A>(text: string, sent: Promise<A>) => {
  sent.catch(ignoreDropped);
  return Effect.tryPromise({ try: () => sent, catch: storageFailure(firstWords(text)) });
};

const awaitRows = <R extends pg.QueryResultRow>(text: string, sent: Promise<pg.QueryResult<R>>) =>
  Effect.map(awaitSent(text, sent), (result) => result.rows);

/**
 * One transaction's connection. Statements go to the server one at a time, in the order they were
 * sent or queried, so the client never holds two at once: one sent while the connection is idle is
 * dispatched at once, one sent while another is in flight once that one succeeded. After a failure
 * nothing more is dispatched (the transaction is aborted anyway): the statements behind it fail
 * with it. `settled` resolves once nothing is in flight, so ROLLBACK is never dispatched ahead of a
 * statement still waiting its turn, which would then run outside the transaction.
 */
const sqlOfTransaction = (client: pg.PoolClient): Transaction & { readonly settled: () => Promise<void> } => {
  let last: Promise<unknown> = Promise.resolve();
  let idle = true;
  const dispatch = <A>(run: () => Promise<A>) => {
    const sent = idle ? run() : last.then(run);
    idle = false;
    last = sent;
    sent.then(() => {
      if (last === sent) idle = true;
    }, ignoreDropped);
    return sent;
  };
  const statement =
    <R extends pg.QueryResultRow>(text: string, values?: ReadonlyArray<unknown>) =>
    () =>
      client.query<R>(prepared(text, values));
  return {
    query: <R extends pg.QueryResultRow>(text: string, values?: ReadonlyArray<unknown>) =>
      Effect.suspend(() => awaitRows<R>(text, dispatch(statement<R>(text, values)))),
    send: <R extends pg.QueryResultRow>(text: string, values?: ReadonlyArray<unknown>) =>
      Effect.sync(() => awaitRows<R>(text, dispatch(statement<R>(text, values)))),
    copyFrom: (text: string, chunks: Iterable<Buffer>) =>
      Effect.map(
        streamCopy(client, dispatch, text, chunks, storageFailure(`encoding ${firstWords(text)}`)),
        (answered) => awaitSent(text, answered),
      ),
    settled: () => last.then(ignoreDropped, ignoreDropped),
  };
};

const statementNames = new Map<string, string>();
const maxNamedStatements = 1_000;

/**
 * A statement as a named (prepared) one: each connection parses and plans a text once, then only
 * binds and executes it. Texts past the first thousand go unnamed (a text built per call must not
 * grow every connection's statements without bound).
 */
const prepared = (text: string, values?: ReadonlyArray<unknown>): pg.QueryConfig => {
  let name = statementNames.get(text);
  if (name === undefined && statementNames.size < maxNamedStatements) {
    name = `gleaner_${statementNames.size + 1}`;
    statementNames.set(text, name);
  }
  return name === undefined
    ? { text, values: values as unknown[] | undefined }
    : { name, text, values: values as unknown[] | undefined };
};

/**
 * Strings' UTF-8 written once into one buffer, each at its offset, with its length in bytes: one
 * allocation, where pg would copy as many parameters into a buffer it grows as it goes (~2× the
 * host's time for a 50-page run's 2 MB of bodies, decision 0036).
 */
export const utf8Blob = (texts: ReadonlyArray<string>) => {
  const lengths = texts.map((text) => Buffer.byteLength(text, "utf8"));
  const blob = Buffer.allocUnsafe(lengths.reduce((sum, length) => sum + length, 0));
  const offsets: number[] = [];
  let at = 0;
  for (const [i, text] of texts.entries()) {
    offsets.push(at);
    at += blob.write(text, at, lengths[i]!, "utf8");
  }
  return { blob, offsets, lengths };
};

/** Items per content-addressed statement: a few tens of MB at SPEC's 64 KiB per page body at most. */
const contentPerStatement = 500;

/**
 * Inserts content-addressed rows (`key` and one value column, bytea or text) a table may already
 * hold: each key once, in key order (`distinctInKeyOrder`), 500 a statement; ON CONFLICT adds
 * nothing for a key already stored. A statement's contents travel as one bytea parameter, their
 * UTF-8 (`utf8Blob`), which the server cuts at the offsets sent beside it: one statement text
 * whatever the count, nothing escaped, and a body's NUL bytes kept (a text parameter cannot carry
 * them). A text column takes its slice as UTF-8 text. Sent (`Transaction.send`); answers the Effect
 * awaiting the server.
 */
export const sendContentAddressed = <T>(
  tx: Transaction,
  insert: {
    readonly table: string;
    readonly key: string;
    readonly value: string;
    readonly valueType: "bytea" | "text";
  },
  items: ReadonlyArray<T>,
  keyOf: (item: T) => string,
  contentOf: (item: T) => string,
): Effect.Effect<Effect.Effect<void, StorageFailure>> =>
  Effect.gen(function* () {
    const sorted = distinctInKeyOrder(items, keyOf);
    const { table, key, value, valueType } = insert;
    const slice = "substring($2::bytea from c.offset_in_blob + 1 for c.length)";
    const content = valueType === "text" ? `convert_from(${slice}, 'UTF8')` : slice;
    const sent: Array<Effect.Effect<unknown, StorageFailure>> = [];
    for (let at = 0; at < sorted.length; at += contentPerStatement) {
      const batch = sorted.slice(at, at + contentPerStatement);
      const { blob, offsets, lengths } = utf8Blob(batch.map(contentOf));
      sent.push(
        yield* tx.send(
          `insert into ${table} (${key}, ${value})
           select c.k, ${content}
             from unnest($1::text[], $3::int[], $4::int[]) with ordinality as c(k, offset_in_blob, length, n)
            order by c.n
           on conflict (${key}) do nothing`,
          [batch.map(keyOf), blob, offsets, lengths],
        ),
      );
    }
    return Effect.all(sent, { discard: true });
  });

/**
 * `items` once per key, in key order: content-addressed rows (page bodies, page records) are inserted
 * in this order inside acceptances, so two transactions inserting some of the same keys at once
 * (ON CONFLICT waits for the other's insert of a key) wait for each other in one order, never in a cycle.
 */
export const distinctInKeyOrder = <T>(items: ReadonlyArray<T>, keyOf: (item: T) => string): T[] =>
  [...new Map(items.map((item) => [keyOf(item), item])).entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, item]) => item);

/** "insert into rows" from a statement, to say which one failed without echoing parameters. */
const firstWords = (text: string): string => text.trim().split(/\s+/).slice(0, 3).join(" ");

const ignoreDropped = (): void => undefined;

export const makeDb = (pool: pg.Pool): Db => ({
  ...sqlOf(pool),
  transaction: <A, E>(work: (tx: Transaction) => Effect.Effect<A, E>) =>
    Effect.acquireUseRelease(
      Effect.tryPromise({
        try: async () => {
          const client = await pool.connect();
          // A checked-out connection the server drops between two statements emits "error" on the
          // client (the pool listens only while it is idle); unheard, that ends the process. The
          // next statement then fails and the release below discards the connection.
          client.on("error", ignoreDropped);
          return { client, tx: sqlOfTransaction(client) };
        },
        catch: storageFailure("connect"),
      }),
      ({ tx }) =>
        tx.query("begin").pipe(
          Effect.zipRight(work(tx)),
          Effect.tap(() => tx.query("commit")),
        ),
      ({ client, tx }, exit) =>
        Effect.promise(async () => {
          // A failure or interruption may leave statements in flight: they end (or are never
          // dispatched) before anything else is said on this connection.
          await tx.settled();
          // The listener goes only once the connection is back in the pool (which listens while it
          // is idle): pg emits "error" for a drop during ROLLBACK too. A discarded one keeps it.
          if (Exit.isSuccess(exit)) {
            client.off("error", ignoreDropped);
            return client.release();
          }
          // After a failed statement or commit the transaction is aborted; ROLLBACK ends it. If even
          // that fails the connection is suspect: release it with the error so the pool discards it.
          try {
            await client.query("rollback");
            client.off("error", ignoreDropped);
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

/**
 * Ids are uuid columns: a lookup by a string that is not a (lowercase, canonical) UUID finds
 * nothing, as in the memory store, instead of failing with "invalid input syntax for type uuid".
 */
export const isUuid = isCanonicalUuid;

/**
 * Ids as a uuid[] parameter's text: uuids need no quoting, and pg's own array encoding escapes each
 * of a first run's 1000 ids (~4 ms). Anything that is not a canonical uuid goes through pg's encoding.
 */
export const uuidArray = (ids: ReadonlyArray<string>): string | ReadonlyArray<string> =>
  ids.every(isUuid) ? `{${ids.join(",")}}` : ids;

/** timestamptz comes back as a Date; the port speaks ISO 8601 with milliseconds. */
export const iso = (value: Date): string => value.toISOString();
export const isoOrNull = (value: Date | null): string | null => (value === null ? null : value.toISOString());

/** The first row of a result through its decoder (core's storedDecoder), or none. */
export const firstDecoded =
  <R, A>(decode: (row: R) => Effect.Effect<A, StorageFailure>) =>
  (rows: ReadonlyArray<R>): Effect.Effect<Option.Option<A>, StorageFailure> =>
    rows[0] === undefined ? Effect.succeedNone : Effect.asSome(decode(rows[0]));

/** Every row of a result through its decoder; the first row it refuses fails the read. */
export const allDecoded =
  <R, A>(decode: (row: R) => Effect.Effect<A, StorageFailure>) =>
  (rows: ReadonlyArray<R>): Effect.Effect<ReadonlyArray<A>, StorageFailure> =>
    Effect.forEach(rows, decode);
