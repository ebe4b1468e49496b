import * as Context from "effect/Context";
import type * as Effect from "effect/Effect";
import type * as Option from "effect/Option";
import type { ApiKeyRecord, DatasetPosition, DatasetRecord, Owner, RowsPageState, StoredDataset } from "../domain.js";
import type { Conflict, StorageFailure } from "../errors.js";
import type {
  AcceptanceOutcome,
  NewRevision,
  RowPosition,
  RowRecord,
  RunAcceptance,
  RunArtifact,
  RunArtifactIndex,
  RunEvidence,
  RunRecord,
  StoredRevision,
} from "../run-domain.js";
import type { DatasetId, ObservationId, OwnerId, RevisionId, RowId, RunId } from "../schema/ids.js";
import type { RowStatus, SourceObservation } from "../schema/row.js";
import type { Routine } from "./run-queue.js";
import type { HeldOutcomeStorage } from "./held-outcome-storage.js";
import type { PageReadStorage } from "./page-read-storage.js";
import type { WebhookStorage } from "./webhook-storage.js";

export interface OwnerActivity {
  readonly datasets: number;
  readonly activeRuns: number;
  readonly runsSince: number;
  /** queuedAt of the oldest run counted in `runsSince`; null when there is none. */
  readonly oldestRunSince: string | null;
}

/** A run handed to a worker, and its dataset as the claim read it. */
export interface ClaimedRun {
  readonly run: RunRecord;
  /**
   * The run owner's dataset (none when it no longer exists), decoded when the run pins it: a stored
   * dataset that no longer decodes fails the run, as a failed read of it would, not its claim.
   */
  readonly dataset: Effect.Effect<Option.Option<DatasetRecord>, StorageFailure>;
}

/** An API key found by its hash: the record, its owner, and the owner's balance when it was read. */
export interface FoundApiKey {
  readonly key: ApiKeyRecord;
  readonly owner: Owner;
  readonly balance: number;
}

/**
 * Durable state. Each method is one atomic unit of work: it either happens whole or not at all,
 * so an adapter never leaves half a dataset or half a run behind. Rules (validation, what a change
 * means) live in core; an adapter stores and reads, and enforces only the uniqueness and
 * compare-and-set guards named here.
 */
export interface StorageService extends WebhookStorage, PageReadStorage, HeldOutcomeStorage {
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

  /** Datasets whose routine is active (scheduleState.status `active`), across owners. */
  readonly listActiveRoutines: () => Effect.Effect<ReadonlyArray<Routine>, StorageFailure>;

  // ---- runs -------------------------------------------------------------------------------

  /**
   * Stores a queued run. Conflict `run_in_progress` when the dataset already has a run that is
   * `queued` or `running`: at most one at a time per dataset, enforced by the store.
   */
  readonly insertRun: (run: RunRecord) => Effect.Effect<void, Conflict | StorageFailure>;
  /** A run of the owner (any dataset), or none. */
  readonly getRun: (ownerId: OwnerId, runId: RunId) => Effect.Effect<Option.Option<RunRecord>, StorageFailure>;
  /** Newest first (queuedAt desc, id desc). */
  readonly listRuns: (datasetId: DatasetId, limit: number) => Effect.Effect<ReadonlyArray<RunRecord>, StorageFailure>;
  /**
   * Hands a run to a worker: `queued` -> `running` (startedAt set, attempts + 1). A run already
   * `running` is handed over again only when `reclaimRunning` (a redelivery after a crash). None
   * when the run is finished or missing: the job is then simply dropped. The claimed run comes
   * with its dataset as the same read found it, which the run pins its recipe and schema from: one
   * statement where the store can (decision 0030).
   */
  readonly claimRun: (
    runId: RunId,
    startedAt: string,
    reclaimRunning: boolean,
  ) => Effect.Effect<Option.Option<ClaimedRun>, StorageFailure>;
  /**
   * Finishes a run without writing rows (failed, blocked or held), with its evidence and, in the
   * same unit of work, the webhook messages core's outboxMessagesForRun gives for it. Applies only
   * while the run is `running`; returns the stored run either way.
   */
  readonly finishRun: (run: RunRecord, evidence: RunEvidence) => Effect.Effect<RunRecord, StorageFailure>;
  /**
   * Accepts a run in one transaction, as core's decideAcceptance orders from the facts the store
   * reads: guard the run is `running` (`held` when `acceptingHeld`, and then still the dataset's
   * newest run) and each row's head revision is the one the engine read; charge `charge.pages`
   * credits idempotently by run id (or, when the balance is short or `holdForDrift`, store `heldRun`,
   * its evidence, `heldOutcome` as the dataset's held outcome and the held run's webhook messages,
   * and nothing else); write rows, revisions with the next gapless per-dataset sequences,
   * observations, evidence, the `succeeded` run and the webhook messages core's
   * outboxMessagesForRun gives for it (dropping the dataset's held outcome when `acceptingHeld`).
   * The run, held run and evidence are written as `stampAcceptance(acceptance, now)` with `now` read
   * from the Clock after the rows are written (so the run's completedAt and its accept step include
   * the write).
   */
  readonly acceptRun: (acceptance: RunAcceptance) => Effect.Effect<AcceptanceOutcome, StorageFailure>;
  /**
   * What per-owner limits are checked against (usecases/owner-limits.ts): the owner's datasets,
   * runs `queued` or `running`, and runs queued at or after `since` with the oldest of their queuedAt.
   */
  readonly ownerActivity: (ownerId: OwnerId, since: string) => Effect.Effect<OwnerActivity, StorageFailure>;
  readonly getRunEvidence: (runId: RunId) => Effect.Effect<Option.Option<RunEvidence>, StorageFailure>;
  /**
   * The trace kept with a run's evidence (getRunEvidence's `trace`), read without the rest of it:
   * `GET /v1/runs/{id}/trace` reads nothing else. None while the run has no evidence.
   */
  readonly getRunTrace: (runId: RunId) => Effect.Effect<Option.Option<RunEvidence["trace"]>, StorageFailure>;
  /**
   * A run's artifacts as getRunEvidence gives them, in the same order, without their bodies, and
   * its recipe (null when it has none): the artifacts index reads no body. None while the run has
   * no evidence.
   */
  readonly listRunArtifacts: (runId: RunId) => Effect.Effect<Option.Option<RunArtifactIndex>, StorageFailure>;
  /**
   * The trace of a run in flight, replaced as the run works (steps so far, the current one
   * `running`), so `GET /v1/runs/{id}/trace` can be followed from any process. The final trace is
   * the one `finishRun`/`acceptRun` store with the evidence; progress is only read until then.
   */
  readonly saveTraceProgress: (runId: RunId, trace: RunEvidence["trace"]) => Effect.Effect<void, StorageFailure>;
  readonly getTraceProgress: (runId: RunId) => Effect.Effect<Option.Option<RunEvidence["trace"]>, StorageFailure>;
  /** One artifact of a run's evidence with its body (the first with that id), read without the others. */
  readonly getArtifact: (runId: RunId, artifactId: string) => Effect.Effect<Option.Option<RunArtifact>, StorageFailure>;

  // ---- rows and revisions -----------------------------------------------------------------

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
   */
  readonly rowsPageState: (
    ownerId: OwnerId,
    datasetId: DatasetId,
  ) => Effect.Effect<Option.Option<RowsPageState>, StorageFailure>;
  readonly getObservations: (
    ids: ReadonlyArray<ObservationId>,
  ) => Effect.Effect<ReadonlyArray<SourceObservation>, StorageFailure>;
}

/** A row's head revision as of a sequence, with the row's key (revisions do not carry it). */
export interface RowAsOf {
  readonly rowKey: string;
  readonly revision: StoredRevision;
}

export class Storage extends Context.Tag("@gleaner/core/Storage")<Storage, StorageService>() {}

/** The port's three areas, so an adapter can implement them in separate files. */
export type DatasetStorage = Pick<
  StorageService,
  | "createOwner"
  | "findOwnerByName"
  | "addApiKey"
  | "findApiKey"
  | "insertDataset"
  | "getDataset"
  | "listDatasets"
  | "updateDataset"
  | "listActiveRoutines"
>;
export type RunStorage = Pick<
  StorageService,
  | "insertRun"
  | "getRun"
  | "listRuns"
  | "claimRun"
  | "finishRun"
  | "acceptRun"
  | "ownerActivity"
  | "getRunEvidence"
  | "getRunTrace"
  | "listRunArtifacts"
  | "getArtifact"
  | "saveTraceProgress"
  | "getTraceProgress"
  | "acceptedReads"
  | "heldOutcome"
>;
export type RowStorage = Pick<
  StorageService,
  | "loadRows"
  | "listRows"
  | "getRow"
  | "applyEdit"
  | "findRevisionByRequest"
  | "listRevisions"
  | "listRowsAsOf"
  | "lastSequence"
  | "rowsPageState"
  | "getObservations"
>;
export type { WebhookStorage } from "./webhook-storage.js";
export type { PageReadStorage } from "./page-read-storage.js";
export type { HeldOutcomeStorage } from "./held-outcome-storage.js";
