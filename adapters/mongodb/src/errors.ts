import { type Conflict, StorageFailure } from "@gleaner/core";

// Pure error and configuration helpers: what a driver error means for the port, and what the
// configured URL and the server's `hello` answer say, without a server.

/** MongoDB's duplicate key error code (E11000), for inserts, updates, upserts and bulk writes alike. */
export const DUPLICATE_KEY = 11000;

const codeOf = (value: unknown): number | undefined => {
  const code = (value as { code?: unknown } | null | undefined)?.code;
  return typeof code === "number" ? code : undefined;
};

/** The error itself, or for a bulk write its first write error, when it is a duplicate key error. */
const duplicateKeyError = (error: unknown): object | undefined => {
  const writeErrors = (error as { writeErrors?: unknown } | null | undefined)?.writeErrors;
  const first: unknown = Array.isArray(writeErrors) ? writeErrors[0] : writeErrors;
  const candidates = [error, first, (first as { err?: unknown } | undefined)?.err];
  return candidates.find((candidate): candidate is object => codeOf(candidate) === DUPLICATE_KEY);
};

export const isDuplicateKey = (error: unknown): boolean => duplicateKeyError(error) !== undefined;

/**
 * The name of the unique index a duplicate key error violated, if that is what the error is.
 * The server names it in the message ("E11000 duplicate key error collection: db.runs index:
 * runs_one_active_per_dataset dup key: { … }"); a bulk write carries it in its first write error.
 */
export const duplicateKeyIndex = (error: unknown): string | undefined => {
  const found = duplicateKeyError(error) as { errmsg?: unknown; message?: unknown } | undefined;
  const message = found?.errmsg ?? found?.message;
  return typeof message === "string" ? /\bindex: (\S+) dup key/.exec(message)?.[1] : undefined;
};

/**
 * A Conflict raised inside a transaction callback. Thrown (not returned) so that withTransaction
 * aborts the transaction and rethrows it; it carries no error label, so it is never retried.
 */
export class ConflictSignal extends Error {
  constructor(readonly conflict: Conflict) {
    super(conflict.message);
  }
}

/** The port's messages, word for word the memory store's. */
export { conflicts } from "@gleaner/core";

/** Unique index name -> the Conflict its violation means, per operation. */
export type ConflictsByIndex = Readonly<Record<string, () => Conflict>>;

/**
 * What a failed operation becomes: a Conflict signalled by our own code, a Conflict for a
 * duplicate key on one of the named indexes, else a StorageFailure keeping the driver error as
 * `cause` (hosts log it, never show it).
 */
export const classifyFailure =
  (operation: string, byIndex: ConflictsByIndex = {}) =>
  (cause: unknown): Conflict | StorageFailure => {
    if (cause instanceof ConflictSignal) return cause.conflict;
    const index = duplicateKeyIndex(cause);
    const conflict = index === undefined ? undefined : byIndex[index];
    return conflict ? conflict() : storageFailure(operation)(cause);
  };

/** A StorageFailure thrown by our own code (a stored document that does not decode) passes as it is. */
export const storageFailure =
  (operation: string) =>
  (cause: unknown): StorageFailure =>
    cause instanceof StorageFailure
      ? cause
      : new StorageFailure({
          message: `MongoDB: ${operation} failed: ${cause instanceof Error ? cause.message : String(cause)}`,
          cause,
        });

const urlParts = /^(mongodb(?:\+srv)?):\/\/(?:[^@/]*@)?([^/?#]*)(?:\/([^?#]*))?/;

/** Where a connection string points, for messages: hosts and database, never the credentials. */
export const describeTarget = (url: string): string => {
  const match = urlParts.exec(url);
  if (!match) return "the configured GLEANER_MONGODB_URL (not a mongodb:// or mongodb+srv:// URL)";
  return `${match[1]}://${match[2]}${match[3] ? `/${match[3]}` : ""}`;
};

/** The database: the configured one, else the one named in the URL's path, else "gleaner". */
export const databaseName = (url: string, configured: string | undefined): string => {
  if (configured) return configured;
  const path = urlParts.exec(url)?.[3];
  return path ? decodeURIComponent(path) : "gleaner";
};

/** The parts of a `hello` answer that say what kind of deployment answered. */
export interface HelloAnswer {
  readonly setName?: unknown;
  readonly msg?: unknown;
}

/**
 * Multi-document transactions need a replica set member or a mongos; a standalone server
 * refuses them ("Transaction numbers are only allowed on a replica set member or mongos") at the
 * first acceptance, long after start. Say so at start instead. Null when the deployment will do.
 */
export const replicaSetProblem = (hello: HelloAnswer, target: string): string | null => {
  if (typeof hello.setName === "string" && hello.setName.length > 0) return null;
  if (hello.msg === "isdbgrid") return null;
  return (
    `MongoDB at ${target} is a standalone server, but Gleaner needs multi-document transactions, ` +
    "which only a replica set (or a sharded cluster) provides. Point GLEANER_MONGODB_URL at a replica set " +
    '(a single node will do: start mongod with --replSet rs0, run rs.initiate(), and add "?replicaSet=rs0" to the URL).'
  );
};
