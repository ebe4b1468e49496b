import type { Conflict, StorageFailure } from "@gleaner/core";
import * as Effect from "effect/Effect";
import {
  type ClientSession,
  type MongoClient,
  ReadConcern,
  ReadPreference,
  type TransactionOptions,
  WriteConcern,
} from "mongodb";
import { type ConflictsByIndex, classifyFailure, storageFailure } from "./errors.js";
import type { Collections } from "./schema.js";

/**
 * The store's handle on MongoDB: its collections, single operations, and transactions. Every
 * method of the port is either one atomic single-document operation (`run`) or one transaction.
 */
export interface Mongo {
  readonly collections: Collections;
  /** One or a few driver calls outside a transaction; any failure is a StorageFailure. */
  readonly run: <A>(operation: string, work: () => Promise<A>) => Effect.Effect<A, StorageFailure>;
  /** Like `run`, with duplicate keys on the named unique indexes turned into Conflicts. */
  readonly guarded: <A>(
    operation: string,
    byIndex: ConflictsByIndex,
    work: () => Promise<A>,
  ) => Effect.Effect<A, Conflict | StorageFailure>;
  /**
   * Runs `work` as one multi-document transaction. `work` may be called more than once (the
   * driver retries on TransientTransactionError, e.g. a write conflict with a concurrent
   * transaction, and retries the commit on UnknownTransactionCommitResult), so it must compute
   * everything from what it reads through `session`, and pass `session` to every operation.
   */
  readonly transaction: <A>(
    operation: string,
    work: (session: ClientSession) => Promise<A>,
  ) => Effect.Effect<A, StorageFailure>;
  /**
   * Like `transaction`; throwing a ConflictSignal aborts it and surfaces its Conflict, and a
   * duplicate key on one of the named unique indexes becomes that index's Conflict.
   */
  readonly guardedTransaction: <A>(
    operation: string,
    byIndex: ConflictsByIndex,
    work: (session: ClientSession) => Promise<A>,
  ) => Effect.Effect<A, Conflict | StorageFailure>;
}

/**
 * Snapshot reads (every read in the transaction sees one point in time, and a write to a
 * document changed by another transaction since that point is a WriteConflict, which the driver
 * retries), majority writes (a committed acceptance survives a primary failover), primary reads
 * (required inside transactions).
 */
export const transactionOptions: TransactionOptions = {
  readConcern: new ReadConcern("snapshot"),
  writeConcern: new WriteConcern("majority"),
  readPreference: ReadPreference.primary,
};

export const makeMongo = (client: MongoClient, collections: Collections): Mongo => ({
  collections,
  run: (operation, work) => Effect.tryPromise({ try: work, catch: storageFailure(operation) }),
  guarded: (operation, byIndex, work) => Effect.tryPromise({ try: work, catch: classifyFailure(operation, byIndex) }),
  transaction: (operation, work) =>
    Effect.tryPromise({ try: () => inTransaction(client, work), catch: storageFailure(operation) }),
  guardedTransaction: (operation, byIndex, work) =>
    Effect.tryPromise({ try: () => inTransaction(client, work), catch: classifyFailure(operation, byIndex) }),
});

const inTransaction = async <A>(client: MongoClient, work: (session: ClientSession) => Promise<A>): Promise<A> => {
  const session = client.startSession();
  try {
    // withTransaction commits, retries per the driver's transaction spec, and aborts on any other
    // error, which it rethrows; it resolves to what `work` returned.
    return await session.withTransaction(work, transactionOptions);
  } finally {
    await session.endSession();
  }
};
