import type * as Effect from "effect/Effect";
import type * as Option from "effect/Option";
import type { ApiKeyRecord, DatasetPosition, DatasetRecord, Owner, StoredDataset } from "../domain.js";
import type { Conflict, StorageFailure } from "../errors.js";
import type { DatasetId, OwnerId } from "../schema/ids.js";
import type { Routine } from "./run-queue.js";

/** An API key found by its hash: the record, its owner, and the owner's balance when it was read. */
export interface FoundApiKey {
  readonly key: ApiKeyRecord;
  readonly owner: Owner;
  readonly balance: number;
}

/** The owners, keys and datasets part of the Storage port. */
export interface DatasetStorage {
  /** Fails with Conflict `owner_exists` when the name is taken. */
  readonly createOwner: (owner: Owner) => Effect.Effect<void, Conflict | StorageFailure>;
  readonly findOwnerByName: (name: string) => Effect.Effect<Option.Option<Owner>, StorageFailure>;
  readonly addApiKey: (key: ApiKeyRecord) => Effect.Effect<void, StorageFailure>;
  /**
   * The key record (with its stored hash), its owner and the owner's credit balance (what
   * Credits.balance answers), looked up by hash. Every authenticated answer carries the balance
   * (X-Credits-Remaining), so it is read with the key: one statement where the store keeps both.
   */
  readonly findApiKey: (hash: string) => Effect.Effect<Option.Option<FoundApiKey>, StorageFailure>;
  /** The owner's keys, oldest first (records with their hashes: core shows none of it). */
  readonly listApiKeys: (ownerId: OwnerId) => Effect.Effect<ReadonlyArray<ApiKeyRecord>, StorageFailure>;
  /**
   * Removes the owner's key with this id, so the next request with it is refused in every process.
   * False when the owner has no such key.
   */
  readonly revokeApiKey: (ownerId: OwnerId, id: string) => Effect.Effect<boolean, StorageFailure>;
  /** Records when a key was last used (core calls it at most once a minute per key). */
  readonly markApiKeyUsed: (hash: string, at: string) => Effect.Effect<void, StorageFailure>;

  /**
   * Stores a new dataset with its bot, recipe version 1 and schema version 1, all or nothing.
   * Fails with Conflict `name_taken` when the owner already has a dataset of that name.
   */
  readonly insertDataset: (record: DatasetRecord) => Effect.Effect<void, Conflict | StorageFailure>;
  readonly getDataset: (ownerId: OwnerId, id: DatasetId) => Effect.Effect<Option.Option<StoredDataset>, StorageFailure>;
  /** Newest first (createdAt desc, id desc), strictly after `after` when given. */
  readonly listDatasets: (
    ownerId: OwnerId,
    page: { readonly after: DatasetPosition | null; readonly limit: number },
  ) => Effect.Effect<ReadonlyArray<StoredDataset>, StorageFailure>;
  /**
   * Replaces a dataset when its stored revision still equals `next.revision - 1`; otherwise
   * Conflict `stale_dataset`. Conflict `name_taken` when the new name belongs to another dataset.
   */
  readonly updateDataset: (next: DatasetRecord) => Effect.Effect<void, Conflict | StorageFailure>;

  /**
   * Removes the owner's dataset, in one unit of work, with everything kept for it: rows, revisions,
   * observations, runs and their evidence (artifacts, trace progress, page reads, the held outcome),
   * the webhooks scoped to it, and the outbox messages and delivery attempts about it. The ledger
   * keeps its entries. False (nothing removed) when the owner has no such dataset, or the id is not
   * a UUID.
   */
  readonly deleteDataset: (ownerId: OwnerId, id: DatasetId) => Effect.Effect<boolean, StorageFailure>;

  /** Datasets whose routine is active (scheduleState.status `active`), across owners. */
  readonly listActiveRoutines: () => Effect.Effect<ReadonlyArray<Routine>, StorageFailure>;
}
