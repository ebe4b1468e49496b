import * as Schema from "effect/Schema";
import * as Struct from "effect/Struct";
import { Dataset } from "./schema/dataset.js";
import { type DatasetId, DateTime, OwnerId, RunId } from "./schema/ids.js";
import { HistoricalSchema } from "./schema/row.js";
import { RunStatus } from "./schema/run.js";
import { Source } from "./schema/source.js";

/** An account. Every resource is scoped to exactly one owner. */
export const Owner = Schema.Struct({ id: OwnerId, name: Schema.String, createdAt: DateTime });
export type Owner = typeof Owner.Type;

/** An API key as stored: only the SHA-256 hash of the full key text. */
/**
 * An API key as stored: its SHA-256 (never the key), its owner, and what an owner sees of it when
 * listing: an id, an optional name, the key's first and last characters, and when it was last used.
 * Keys made before keys could be listed have only the first three.
 */
export const ApiKeyRecord = Schema.Struct({
  hash: Schema.String,
  ownerId: OwnerId,
  createdAt: DateTime,
  id: Schema.optional(Schema.UUID),
  name: Schema.optional(Schema.NullOr(Schema.String)),
  prefix: Schema.optional(Schema.NullOr(Schema.String)),
  lastFour: Schema.optional(Schema.NullOr(Schema.String)),
  lastUsedAt: Schema.optional(Schema.NullOr(DateTime)),
});
export type ApiKeyRecord = typeof ApiKeyRecord.Type;

/** A recipe version pinned for runs: the decoded Source with every default applied. */
export const RecipeVersion = Schema.Struct({
  version: Schema.Int.pipe(Schema.greaterThanOrEqualTo(1)),
  source: Source,
  createdAt: DateTime,
});
export type RecipeVersion = typeof RecipeVersion.Type;

/**
 * A dataset as stored. `revision` is an optimistic-concurrency counter: every update names the
 * revision it read, so two concurrent PATCHes cannot silently overwrite each other.
 */
export const DatasetRecord = Schema.Struct({
  ...Struct.omit(Dataset.fields, "rowCount", "lastRun"),
  ownerId: OwnerId,
  /** The dataset's single bot: the identity that runs its recipe. */
  botId: Schema.String,
  recipes: Schema.Array(RecipeVersion),
  /** Every schema the dataset has had, oldest first; the last one is current. */
  schemas: Schema.Array(HistoricalSchema),
  revision: Schema.Int.pipe(Schema.greaterThanOrEqualTo(1)),
});
export type DatasetRecord = typeof DatasetRecord.Type;

/** A stored dataset plus the figures the API shows beside it. */
export const StoredDataset = Schema.Struct({
  record: DatasetRecord,
  rowCount: Dataset.fields.rowCount,
  lastRun: Dataset.fields.lastRun,
});
export type StoredDataset = typeof StoredDataset.Type;

/**
 * What a rows page's entity tag is computed from (usecases/rows-tag.ts, decision 0042), read in one
 * call: every write a page can show moves one of them.
 */
export const RowsPageState = Schema.Struct({
  /** The dataset's revision (moved by every update). */
  revision: DatasetRecord.fields.revision,
  /** The dataset's highest change-feed sequence, 0 without revisions (moved by acceptances and edits). */
  lastSequence: Schema.Int.pipe(Schema.greaterThanOrEqualTo(0)),
  /** The dataset's newest run (queuedAt desc, id desc) whatever its status; null when it has none. */
  newestRun: Schema.NullOr(Schema.Struct({ id: RunId, status: RunStatus })),
});
export type RowsPageState = typeof RowsPageState.Type;

/** Keyset position in the newest-first dataset listing. */
export interface DatasetPosition {
  readonly createdAt: string;
  readonly id: DatasetId;
}
