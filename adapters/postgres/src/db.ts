import { type Conflict, conflicts, isCanonicalUuid, StorageFailure } from "@gleaner/core";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import type * as Option from "effect/Option";
import type pg from "pg";

/** Something that runs SQL: the pool, or one connection inside a transaction. */
export interface Sql {
  readonly query: <R extends pg.QueryResultRow = Record<string, unknown>>(
    text: string,
    values?: ReadonlyArray<unknown>,
  ) => Effect.Effect<ReadonlyArray<R>, StorageFailure>;
  /**
   * Sends a statement now and answers the Effect awaiting its rows, so the host can encode the next
   * statement while the server runs this one (an acceptance's writes). On a transaction's connection
   * statements run in the order sent, one at a time; after a failed one the rest fail with it and
   * ROLLBACK waits for them. Await every sent statement, or fail the transaction.
   */
  readonly send: <R extends pg.QueryResultRow = Record<string, unknown>>(
    text: string,
    values?: ReadonlyArray<unknown>,
  ) => Effect.Effect<Effect.Effect<ReadonlyArray<R>, StorageFailure>>;
}

export interface Db extends Sql {
  /**
   * Runs `work` on one connection between BEGIN and COMMIT; any failure (or interruption) rolls
   * back. Success values commit, including "nothing to do" outcomes: they wrote nothing.
   */
  readonly transaction: <A, E>(work: (tx: Sql) => Effect.Effect<A, E>) => Effect.Effect<A, E | StorageFailure>;
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

const statementNames = new Map<string, string>();
const maxNamedStatements = 1_000;

/**
 * A statement as a named (prepared) one: each connection parses and plans a text once, then only
 * binds and executes it (a third less backend CPU in a scale-out round). Texts past the first thousand go
 * unnamed, so a text built per call cannot grow every connection's statements without bound.
 */
const prepared = (text: string, values?: ReadonlyArray<unknown>): pg.QueryConfig => {
  let name = statementNames.get(text);
  if (name === undefined && statementNames.size < maxNamedStatements) {
    name = `gleaner_${statementNames.size + 1}`;
    statementNames.set(text, name);
  }
  const params = values as unknown[] | undefined;
  return name === undefined ? { text, values: params } : { name, text, values: params };
};

/** "insert into rows" from a statement, to say which one failed without echoing parameters. */
const firstWords = (text: string): string => text.trim().split(/\s+/).slice(0, 3).join(" ");

const ignoreDropped = (): void => undefined;

const noting =
  (toFailure: (cause: unknown) => StorageFailure, onUnavailable: () => void) =>
  (cause: unknown): StorageFailure => {
    const failure = toFailure(cause);
    if (failure.unavailable) onUnavailable();
    return failure;
  };

/** A transaction's statements in flight: the last one sent. */
interface Queue {
  last: Promise<unknown>;
}

/**
 * SQL on the pool, or on one connection (`queue` given). The pool's connections pipeline (pg's
 * `pipeline`): a statement goes out when it is sent, without waiting for the ones before it, and
 * the server runs them in order, so it writes one while the host encodes the next. In a transaction
 * a failed statement fails those sent behind it (the transaction is aborted), and ROLLBACK ends it.
 */
const sqlOf = (client: pg.Pool | pg.PoolClient, onUnavailable: () => void, queue?: Queue): Sql => {
  const start = <R extends pg.QueryResultRow>(text: string, values?: ReadonlyArray<unknown>) => {
    const sent = client.query<R>(prepared(text, values));
    // Handled here too: a statement failing behind a failed one may never be awaited.
    sent.catch(ignoreDropped);
    if (queue !== undefined) queue.last = sent;
    return sent;
  };
  const awaiting = <R extends pg.QueryResultRow>(text: string, sent: Promise<pg.QueryResult<R>>) =>
    Effect.tryPromise({ try: () => sent, catch: noting(storageFailure(firstWords(text)), onUnavailable) }).pipe(
      Effect.map((result) => result.rows),
    );
  return {
    query: (text, values) => Effect.suspend(() => awaiting(text, start(text, values))),
    send: (text, values) => Effect.sync(() => awaiting(text, start(text, values))),
  };
};

/** `onUnavailable` hears each statement or connection that failed for the database being out of reach. */
export const makeDb = (pool: pg.Pool, onUnavailable: () => void = () => {}): Db => ({
  ...sqlOf(pool, onUnavailable),
  transaction: <A, E>(work: (tx: Sql) => Effect.Effect<A, E>) =>
    Effect.acquireUseRelease(
      Effect.tryPromise({
        try: async () => {
          const client = await pool.connect();
          // A checked-out connection the server drops between two statements emits "error" on the
          // client (the pool listens only while it is idle); unheard, that ends the process. The
          // next statement then fails and the release below discards the connection.
          client.on("error", ignoreDropped);
          return { client, queue: { last: Promise.resolve() as Promise<unknown> } };
        },
        catch: noting(storageFailure("connect"), onUnavailable),
      }),
      ({ client, queue }) => {
        // Statements sent behind a failed one fail with it: the transaction counts as one failure.
        let counted = false;
        const once = () => {
          if (!counted) onUnavailable();
          counted = true;
        };
        const tx = sqlOf(client, once, queue);
        // The server answers COMMIT of a transaction a statement aborted with ROLLBACK, not an error:
        // with statements sent ahead, that is a failure to report, never a success.
        const commit = Effect.tryPromise({
          try: () => client.query("commit"),
          catch: noting(storageFailure("commit"), once),
        }).pipe(
          Effect.filterOrFail(
            (result) => result.command !== "ROLLBACK",
            () => new StorageFailure({ message: "PostgreSQL: the transaction was rolled back at commit." }),
          ),
        );
        return tx.query("begin").pipe(
          Effect.zipRight(work(tx)),
          Effect.tap(() => commit),
        );
      },
      ({ client, queue }, exit) =>
        Effect.promise(async () => {
          // A failure or interruption may leave statements sent: they end (or are never dispatched)
          // before ROLLBACK, which would otherwise run ahead of one still waiting its turn.
          await queue.last.then(ignoreDropped, ignoreDropped);
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

/** timestamptz comes back as a Date; the port speaks ISO 8601 with milliseconds. */
export const iso = (value: unknown): string => (value as Date).toISOString();
export const isoOrNull = (value: unknown): string | null => (value === null ? null : iso(value));

/** A table row as pg parses it (timestamptz as Date, json parsed), read through a decoder, never cast. */
export type TableRow = Readonly<Record<string, unknown>>;

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

/** JSON a batch statement carries, about: the server writes one batch while the host encodes the next. */
const batchBytes = 256 * 1024;

/**
 * A table's columns, each with its SQL type and how a record fills it, written once: a bulk write's
 * column list, its parameter and the parameter's expansion all come from it, so a new column is one
 * line here (and one in its read). Records go as JSON arrays expanded by `json_to_recordset`.
 */
export const tableMapping = <T>(
  columns: Readonly<Record<string, readonly [type: string, value: (record: T) => unknown]>>,
) => {
  const entries = Object.entries(columns);
  const isJson = (type: string) => type === "json" || type === "jsonb";
  const expand = (param: string, asText: boolean) =>
    `json_to_recordset(${param}::json) as p(${entries.map(([name, [type]]) => `${name} ${asText && isJson(type) ? "text" : type}`).join(", ")})`;
  const nestedSelect = entries.map(([name]) => `p.${name}`).join(", ");
  const textSelect = entries
    .map(([name, [type]]) => (isJson(type) ? `p.${name}::${type} as ${name}` : `p.${name}`))
    .join(", ");
  const rowOf = (record: T, asText: boolean) => {
    const row: Record<string, unknown> = {};
    for (const [name, [type, value]] of entries) {
      const v = value(record);
      row[name] = asText && isJson(type) && v !== null && v !== undefined ? JSON.stringify(v) : v;
    }
    return row;
  };
  /**
   * A json column's value is nested in the array as it is, encoded once. PostgreSQL's JSON parser
   * refuses the escape `\u0000` anywhere in a document it expands, though a json value may hold it:
   * a batch holding one sends each json value as a string of its JSON text instead, cast back in the
   * select (the server then de-escapes only the outer string).
   */
  const batchOf = (nested: string, records: ReadonlyArray<T>, param: string): Batch => {
    const asText = nested.includes("\\u0000");
    return {
      value: asText ? JSON.stringify(records.map((record) => rowOf(record, true))) : nested,
      select: `select ${asText ? textSelect : nestedSelect} from ${expand(param, asText)}`,
    };
  };
  return {
    names: entries.map(([name]) => name),
    /** The columns, comma-separated: `insert into t (${list}) ${batch.select}`. */
    list: entries.map(([name]) => name).join(", "),
    /** `c = excluded.c` for every column but those in `keep` (an upsert's update). */
    updates: (keep: ReadonlyArray<string>) =>
      entries
        .filter(([name]) => !keep.includes(name))
        .map(([name]) => `${name} = excluded.${name}`)
        .join(", "),
    /** `records` as the parameter `param` (the batch's `value`) and the `select` reading them back as rows. */
    batch: (records: ReadonlyArray<T>, param: string): Batch =>
      batchOf(JSON.stringify(records.map((record) => rowOf(record, false))), records, param),
    /** `records` as batches of about `batchBytes` of JSON each, in order, each encoded when it is asked for. */
    *batches(records: ReadonlyArray<T>, param: string): Generator<Batch> {
      let parts: string[] = [];
      let size = 0;
      let from = 0;
      for (let i = 0; i < records.length; i++) {
        const part = JSON.stringify(rowOf(records[i]!, false));
        parts.push(part);
        size += part.length;
        if (size >= batchBytes || i === records.length - 1) {
          yield batchOf(`[${parts.join(",")}]`, records.slice(from, i + 1), param);
          parts = [];
          size = 0;
          from = i + 1;
        }
      }
    },
  };
};

/** Records as a JSON parameter and the select reading them back (`tableMapping`). */
export interface Batch {
  readonly value: string;
  readonly select: string;
}

/** Batch statements of one write waiting on the server at most: a statement's timeout counts from its send. */
const batchesAhead = 2;

/**
 * Sends `batches` one statement each (`statement` around the batch's select, the batch as $1
 * before `values`), each as soon as it is encoded, so the server writes one while the host encodes
 * the next; at most `batchesAhead` wait their turn, so no statement waits behind a whole table.
 * Answers the Effect awaiting them all.
 */
export const sendBatches = (
  tx: Sql,
  batches: Iterable<Batch>,
  statement: (select: string) => string,
  values: ReadonlyArray<unknown> = [],
): Effect.Effect<Effect.Effect<void, StorageFailure>, StorageFailure> =>
  Effect.gen(function* () {
    const sent: Array<Effect.Effect<unknown, StorageFailure>> = [];
    for (const batch of batches) {
      if (sent.length >= batchesAhead) yield* sent[sent.length - batchesAhead]!;
      sent.push(yield* tx.send(statement(batch.select), [batch.value, ...values]));
    }
    return Effect.all(sent.slice(-batchesAhead), { discard: true });
  });

/** Records as one JSON array parameter, for a `json_to_recordset` whose columns are written in its statement. */
export const recordset = (records: ReadonlyArray<object>): string => JSON.stringify(records);
