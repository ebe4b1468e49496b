import type * as Effect from "effect/Effect";
import type * as Option from "effect/Option";
import type { DatasetRecord } from "../domain.js";
import type { Conflict, StorageFailure } from "../errors.js";
import type {
  AcceptanceOutcome,
  RunAcceptance,
  RunArtifact,
  RunArtifactIndex,
  RunEvidence,
  RunRecord,
} from "../run-domain.js";
import type { DatasetId, OwnerId, RunId } from "../schema/ids.js";
import type { HeldOutcomeStorage } from "./held-outcome-storage.js";
import type { PageReadStorage } from "./page-read-storage.js";

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

/** The runs and their evidence part of the Storage port, with what accepted runs read and a held run's outcome. */
export interface RunStorage extends PageReadStorage, HeldOutcomeStorage {
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
   * statement where the store can (decision 0042).
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
  /**
   * Runs waiting for a worker across every owner (`queued`), and when the oldest was queued: what an
   * operator's "is the queue stuck" alert reads. Optional: a store without it shows no queue gauge.
   */
  readonly queuedRuns?: () => Effect.Effect<
    { readonly count: number; readonly oldestQueuedAt: string | null },
    StorageFailure
  >;
  /**
   * Retention (rules/retention.ts): removes the record of up to `limit` runs that finished before
   * `finishedBefore`: trace, facts, failures, plan and artifacts, and the page bodies nothing kept
   * holds any more. The Run stays, and so do rows, revisions, the observations they cite, each
   * dataset's latest accepted page reads (and their bodies), the ledger, and the record of the run a
   * dataset's held outcome belongs to (it may still be accepted). Answers how many runs' records
   * went; every process may run it at once (a second prune finds nothing to remove).
   */
  readonly pruneRunRecords: (finishedBefore: string, limit: number) => Effect.Effect<number, StorageFailure>;
  /** One artifact of a run's evidence with its body (the first with that id), read without the others. */
  readonly getArtifact: (runId: RunId, artifactId: string) => Effect.Effect<Option.Option<RunArtifact>, StorageFailure>;
}
