import type * as Effect from "effect/Effect";
import type * as Option from "effect/Option";
import type { RowsPageState } from "../domain.js";
import type { Conflict, StorageFailure } from "../errors.js";
import type { NewRevision, RowPosition, RowRecord, StoredRevision } from "../run-domain.js";
import type { DatasetId, ObservationId, OwnerId, RevisionId, RowId } from "../schema/ids.js";
import type { RowStatus, SourceObservation } from "../schema/row.js";

/** A row's head revision as of a sequence, with the row's key (revisions do not carry it). */
export interface RowAsOf {
  readonly rowKey: string;
  readonly revision: StoredRevision;
}

/** The rows and their history part of the Storage port. */
export interface RowStorage {
  /** Every current row of a dataset (the engine reconciles a run against them). */
  readonly loadRows: (datasetId: DatasetId) => Effect.Effect<ReadonlyArray<RowRecord>, StorageFailure>;
  /** Rows by updatedAt desc, id desc, strictly after `after`, updated at or after `since`. */
  readonly listRows: (
    datasetId: DatasetId,
    page: {
      readonly after: RowPosition | null;
      readonly since: string | null;
      readonly statuses: ReadonlyArray<RowStatus>;
      readonly limit: number;
    },
  ) => Effect.Effect<ReadonlyArray<RowRecord>, StorageFailure>;
  readonly getRow: (datasetId: DatasetId, rowId: RowId) => Effect.Effect<Option.Option<RowRecord>, StorageFailure>;
  /**
   * Applies a manual edit: replaces the row and appends its revision only when the row's head is
   * still `expectedRevisionId` (else Conflict `stale_revision`), and the revision's requestId is
   * new for the dataset (else Conflict `duplicate_request`). Returns the stored revision.
   */
  readonly applyEdit: (
    row: RowRecord,
    expectedRevisionId: RevisionId,
    revision: NewRevision,
  ) => Effect.Effect<StoredRevision, Conflict | StorageFailure>;
  readonly findRevisionByRequest: (
    datasetId: DatasetId,
    requestId: string,
  ) => Effect.Effect<Option.Option<StoredRevision>, StorageFailure>;
  /** Revisions with after < sequence <= through, ascending, optionally one row's or one cell's. */
  readonly listRevisions: (
    datasetId: DatasetId,
    window: {
      readonly after: number;
      readonly through: number;
      readonly limit: number;
      readonly rowId: RowId | null;
      readonly fieldId: string | null;
    },
  ) => Effect.Effect<ReadonlyArray<StoredRevision>, StorageFailure>;
  /**
   * Each row's head as of change-feed sequence `asOf`: for every row with a revision at or below
   * `asOf`, its highest such revision with the row's key, ascending by row id, strictly after
   * `after`. Point-in-time exports page through it.
   */
  readonly listRowsAsOf: (
    datasetId: DatasetId,
    page: { readonly asOf: number; readonly after: RowId | null; readonly limit: number },
  ) => Effect.Effect<ReadonlyArray<RowAsOf>, StorageFailure>;
  /** The highest sequence of the dataset (0 when it has no revision). */
  readonly lastSequence: (datasetId: DatasetId) => Effect.Effect<number, StorageFailure>;
  /**
   * What a rows page's entity tag is computed from (usecases/rows-tag.ts), in one read: none when
   * the dataset is not the owner's. One statement where the store has them, so the three agree.
   * Optional: core reads the three apart without it (storage-fallbacks.ts).
   */
  readonly rowsPageState?: (
    ownerId: OwnerId,
    datasetId: DatasetId,
  ) => Effect.Effect<Option.Option<RowsPageState>, StorageFailure>;
  readonly getObservations: (
    ids: ReadonlyArray<ObservationId>,
  ) => Effect.Effect<ReadonlyArray<SourceObservation>, StorageFailure>;
}
