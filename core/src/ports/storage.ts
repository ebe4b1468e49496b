import { Context, type Effect, type Option } from "effect";
import type { ApiKeyRecord, DatasetPosition, DatasetRecord, Owner, StoredDataset } from "../domain.js";
import type { Conflict, StorageFailure } from "../errors.js";
import type { DatasetId, OwnerId } from "../schema/ids.js";

/**
 * Durable state. Each method is one atomic unit of work: it either happens whole or not at all,
 * so an adapter never leaves half a dataset or half a run behind. Rules (validation, what a change
 * means) live in core; an adapter stores and reads, and enforces only the uniqueness and
 * compare-and-set guards named here.
 */
export interface StorageService {
  /** Fails with Conflict `owner_exists` when the name is taken. */
  readonly createOwner: (owner: Owner) => Effect.Effect<void, Conflict | StorageFailure>;
  readonly findOwnerByName: (name: string) => Effect.Effect<Option.Option<Owner>, StorageFailure>;
  readonly addApiKey: (key: ApiKeyRecord) => Effect.Effect<void, StorageFailure>;
  /** The key record (with its stored hash) and its owner, looked up by hash. */
  readonly findApiKey: (
    hash: string,
  ) => Effect.Effect<Option.Option<{ readonly key: ApiKeyRecord; readonly owner: Owner }>, StorageFailure>;

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
}

export class Storage extends Context.Tag("@gleaner/core/Storage")<Storage, StorageService>() {}
