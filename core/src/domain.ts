import type { DatasetColumn } from "./schema/column.js";
import type { DatasetStatus, RunSummary, ScheduleState } from "./schema/dataset.js";
import type { DatasetId, OwnerId } from "./schema/ids.js";
import type { HistoricalSchema } from "./schema/row.js";
import type { Source } from "./schema/source.js";

/** An account. Every resource is scoped to exactly one owner. */
export interface Owner {
  readonly id: OwnerId;
  readonly name: string;
  readonly createdAt: string;
}

/** An API key as stored: only the SHA-256 hash of the full key text. */
export interface ApiKeyRecord {
  readonly hash: string;
  readonly ownerId: OwnerId;
  readonly createdAt: string;
}

/** A recipe version pinned for runs: the decoded Source with every default applied. */
export interface RecipeVersion {
  readonly version: number;
  readonly source: Source;
  readonly createdAt: string;
}

/**
 * A dataset as stored. `revision` is an optimistic-concurrency counter: every update names the
 * revision it read, so two concurrent PATCHes cannot silently overwrite each other.
 */
export interface DatasetRecord {
  readonly id: DatasetId;
  readonly ownerId: OwnerId;
  readonly name: string;
  readonly question: string | null;
  readonly columns: ReadonlyArray<DatasetColumn>;
  readonly schemaVersion: number;
  readonly status: DatasetStatus;
  readonly schedule: string | null;
  readonly scheduleState: ScheduleState | null;
  /** The dataset's single bot: the identity that runs its recipe. */
  readonly botId: string;
  readonly recipes: ReadonlyArray<RecipeVersion>;
  /** Every schema the dataset has had, oldest first; the last one is current. */
  readonly schemas: ReadonlyArray<HistoricalSchema>;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly revision: number;
}

/** A stored dataset plus the figures the API shows beside it. */
export interface StoredDataset {
  readonly record: DatasetRecord;
  readonly rowCount: number;
  readonly lastRun: RunSummary | null;
}

/** Keyset position in the newest-first dataset listing. */
export interface DatasetPosition {
  readonly createdAt: string;
  readonly id: DatasetId;
}
