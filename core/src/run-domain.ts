import * as Schema from "effect/Schema";
import * as Struct from "effect/Struct";
import type { PageReadsToKeep } from "./page-reads.js";
import type { HeldOutcome } from "./held-outcome.js";
import { DriftReport } from "./schema/drift.js";
import { ResearchRecipe } from "./schema/research.js";
import { RunArtifactWithBody } from "./schema/responses.js";
import { Run, RunTrace } from "./schema/run.js";
import { DatasetId, OwnerId, type RevisionId, type RowId } from "./schema/ids.js";
import {
  CellOverrides,
  DatasetRow,
  FieldEvidence,
  MissingReason,
  ResearchRowIdentity,
  RowData,
  RowRevision,
  Scalar,
  type SourceObservation,
} from "./schema/row.js";

/** A run as stored: the API's Run plus what the engine needs to execute and account for it. */
export const RunRecord = Schema.Struct({
  ...Run.fields,
  ownerId: OwnerId,
  trigger: Schema.Literal("manual", "schedule"),
  /** Deliveries of this run to a worker; more than one means a retry after a crash or timeout. */
  attempts: Schema.Int.pipe(Schema.greaterThanOrEqualTo(0)),
  /** Pages charged when the run was accepted; null otherwise. */
  chargedPages: Schema.NullOr(Schema.Int.pipe(Schema.greaterThanOrEqualTo(0))),
  /** The owner asked to accept the run despite drift (`{"acceptDrift": true}`); absent means false. */
  acceptDrift: Schema.optional(Schema.Boolean),
});
export type RunRecord = typeof RunRecord.Type;

const runKeys = Object.keys(Run.fields) as ReadonlyArray<keyof Run>;

/** The API view of a stored run: the Run schema's fields, nothing else. */
export const toRun = (record: RunRecord): Run => Struct.pick(record, ...runKeys);

/**
 * A body recorded at a boundary (endpoints 12/13): a page as read (deterministic runs), or the
 * research provider boundary's planning output, cleaned page text and extraction output.
 * The API's artifact, except that a stored one always names its page (for the planning output:
 * the dataset's source URL); `body` is null when it exceeded 64 KiB (the hash and size still
 * describe it).
 */
export const RunArtifact = Schema.Struct({ ...RunArtifactWithBody.fields, url: Schema.String });
export type RunArtifact = typeof RunArtifact.Type;

/**
 * A stored artifact without its body: what the artifacts index (endpoint 12) lists of it. The API's
 * RunArtifactSummary, except that a stored one always names its page (`url` a string), as RunArtifact.
 */
export const RunArtifactEntry = Schema.Struct(Struct.omit(RunArtifact.fields, "body"));
export type RunArtifactEntry = typeof RunArtifactEntry.Type;

/**
 * What the artifacts index of a run is read from (`Storage.listRunArtifacts`): its artifacts in
 * evidence order without their bodies, and its pinned research recipe (null for deterministic runs).
 */
export interface RunArtifactIndex {
  readonly recipe: ResearchRecipe | null;
  readonly artifacts: ReadonlyArray<RunArtifactEntry>;
}

/** One cell of an extracted record, as recorded. */
const RecordedCell = Schema.Struct({
  fieldId: Schema.String,
  value: Scalar,
  missingReason: Schema.NullOr(MissingReason),
  raw: Schema.NullOr(Schema.String),
});

/** What was recorded about one extracted record, for diagnostics (`entity=<rowKey>`). */
export const RecordFact = Schema.Struct({
  rowKey: Schema.NullOr(Schema.String),
  pageUrl: Schema.String,
  index: Schema.NonNegativeInt,
  cells: Schema.Array(RecordedCell),
  /** Research runs: the entity the row stands for, the names it was seen under, and cell conflicts. */
  entity: Schema.optional(
    Schema.Struct({
      kind: Schema.String,
      anchor: Schema.String,
      aliases: Schema.Array(Schema.String),
      pages: Schema.Array(Schema.String),
      conflicts: Schema.Array(
        Schema.Struct({
          fieldId: Schema.String,
          values: Schema.Array(Schema.String),
          /** Every value a page gave, with its page and quote, and whether it is the one written. */
          choices: Schema.optional(
            Schema.Array(
              Schema.Struct({
                value: Schema.String,
                pageUrl: Schema.String,
                quote: Schema.NullOr(Schema.String),
                written: Schema.Boolean,
              }),
            ),
          ),
        }),
      ),
    }),
  ),
});
export type RecordFact = typeof RecordFact.Type;

/**
 * A read that did not yield a page (stage `retrieval`, code = readFailure reason) or a research
 * value refused (stage `validation`), as recorded.
 */
export const RecordedFailure = Schema.Struct({
  stage: Schema.String,
  code: Schema.String,
  detail: Schema.String,
  url: Schema.NullOr(Schema.String),
  /** The trace step of the failed read: the failure's evidence id. Absent on older records. */
  stepId: Schema.optional(Schema.String),
  /** The HTTP status the site answered, when it answered. Absent on older records. */
  status: Schema.optional(Schema.NullOr(Schema.Int)),
  /** A research value refused (stage `validation`): the entity it was about. */
  entity: Schema.optional(Schema.String),
  /** A research value refused: the field it was refused for. Absent on older records (their detail names it). */
  fieldId: Schema.optional(Schema.String),
});
export type RecordedFailure = typeof RecordedFailure.Type;

/** The recipe a run pinned: what it was asked to read and within which limits. */
export const PinnedRecipe = Schema.Struct({
  recipeVersion: Schema.NonNegativeInt,
  schemaVersion: Schema.NonNegativeInt,
  url: Schema.String,
  pagination: Schema.String,
  itemSelector: Schema.String,
  maxPages: Schema.NonNegativeInt,
  maxItems: Schema.NonNegativeInt,
  minimumItems: Schema.NonNegativeInt,
  render: Schema.String,
  proxy: Schema.String,
  ignoreRobots: Schema.Boolean,
  /** Field ids of the identity, in order. */
  identityFieldIds: Schema.Array(Schema.String),
});
export type PinnedRecipe = typeof PinnedRecipe.Type;

/** What a check names: every record that made it fail. */
export const CheckNames = Schema.Struct({
  checkId: Schema.String,
  records: Schema.Array(
    Schema.Struct({ rowKey: Schema.NullOr(Schema.String), pageUrl: Schema.String, index: Schema.NonNegativeInt }),
  ),
});
export type CheckNames = typeof CheckNames.Type;

const RowKeys = Schema.Array(Schema.String);
/** Row id by rowKey. */
const RowIdsByKey = Schema.Record({ key: Schema.String, value: Schema.String });

/** The reconciliation the run computed against the current rows (applied only if accepted). */
export const ReconciliationRecord = Schema.Struct({
  new: Schema.NonNegativeInt,
  changed: Schema.NonNegativeInt,
  unchanged: Schema.NonNegativeInt,
  gone: Schema.NonNegativeInt,
  /** Row id by rowKey for every row the plan touched or saw (new rows exist only once accepted). */
  rowIds: RowIdsByKey,
  /** rowKeys of rows the plan creates. */
  created: RowKeys,
  /** rowKeys of rows not seen by this run (they go missing). */
  goneKeys: RowKeys,
  /** rowKeys of rows whose source values changed (returned rows included). */
  changedKeys: RowKeys,
  /** rowKeys of rows that were missing and are seen again. */
  returnedKeys: RowKeys,
  /** Overridden cells whose manual value the plan kept. */
  overridesKept: Schema.Array(Schema.Struct({ rowKey: Schema.String, fieldId: Schema.String })),
});
export type ReconciliationRecord = typeof ReconciliationRecord.Type;

/**
 * A page whose records a run took from the dataset's newest accepted run instead of parsing it
 * (decision 0042): its bytes were that run's (`same_digest`), or the site answered 304 to that
 * read's validators (`not_modified`). The page was still read, checked and charged.
 */
export const PageReuse = Schema.Struct({
  url: Schema.String,
  fromRunId: Schema.String,
  basis: Schema.Literal("same_digest", "not_modified"),
});
export type PageReuse = typeof PageReuse.Type;

/**
 * What the engine decided besides reading, for diagnostics: the pinned recipe, each check's named
 * records, the reconciliation plan and the pages it would charge. Null on runs recorded before.
 */
export const RunPlanRecord = Schema.Struct({
  recipe: Schema.NullOr(PinnedRecipe),
  checks: Schema.Array(CheckNames),
  reconciliation: Schema.NullOr(ReconciliationRecord),
  pagesToCharge: Schema.NullOr(Schema.NonNegativeInt),
  /**
   * Row ids of rows that already existed for keys the run read, recorded when the run ended before
   * reconciliation (a failed check), so diagnostics can name the row a lost cell belongs to.
   */
  knownRowIds: Schema.optional(RowIdsByKey),
  /** Pages whose extraction was reused rather than parsed; absent when none was (or before it existed). */
  reused: Schema.optional(Schema.Array(PageReuse)),
  /** What the drift rule found (decision 0040); absent when it did not apply. */
  drift: Schema.optional(DriftReport),
});
export type RunPlanRecord = typeof RunPlanRecord.Type;

/**
 * The trace as a run records it: the API's trace without `status`, which the run's record holds.
 * Its limits are the API's (decision 0012): the engine has always written within them.
 */
export const RecordedTrace = Schema.Struct(Struct.omit(RunTrace.fields, "status"));
export type RecordedTrace = typeof RecordedTrace.Type;

/**
 * A run's evidence as a store keeps it in one record: everything but the artifacts, which are
 * kept one by one (so one can be read without the rest) and decoded as RunArtifact.
 */
export const RunEvidenceRecord = Schema.Struct({
  trace: RecordedTrace,
  /** The pinned research recipe; absent (null) for deterministic runs. */
  recipe: Schema.optional(Schema.NullOr(ResearchRecipe)),
  facts: Schema.Array(RecordFact),
  failures: Schema.Array(RecordedFailure),
  /** Absent or null on runs recorded before the plan was kept. */
  plan: Schema.optional(Schema.NullOr(RunPlanRecord)),
});
export type RunEvidenceRecord = typeof RunEvidenceRecord.Type;

/** Everything a finished run leaves besides rows: its trace, artifacts and recorded facts. */
export const RunEvidence = Schema.Struct({ ...RunEvidenceRecord.fields, artifacts: Schema.Array(RunArtifact) });
export type RunEvidence = typeof RunEvidence.Type;

/** The current state of one row: the API's row plus what only the store keeps. `revisionId` is the head of its revision chain. */
export const RowRecord = Schema.Struct({
  ...Struct.omit(DatasetRow.fields, "identity"),
  datasetId: DatasetId,
  /** The entity a research run identified; absent or null for deterministic rows. */
  identity: Schema.optional(Schema.NullOr(ResearchRowIdentity)),
  evidence: FieldEvidence,
  overrides: CellOverrides,
});
export type RowRecord = typeof RowRecord.Type;

/** A revision as stored: sequence assigned by the store, `before` kept for the change feed. */
export const StoredRevision = Schema.Struct({
  ...RowRevision.fields,
  before: Schema.NullOr(RowData),
  beforeOverrides: Schema.NullOr(CellOverrides),
});
export type StoredRevision = typeof StoredRevision.Type;

/** A revision to append; the store assigns the next per-dataset `sequence` atomically. */
export type NewRevision = Omit<StoredRevision, "sequence">;

/**
 * One accepted run, written in one transaction: the rows it touched (each guarded by the revision
 * the engine read), their new revisions, the page observations, the charge and the run's final state.
 */
/** A row an acceptance writes, with the head revision the engine read it at. */
export interface AcceptedRow {
  readonly row: RowRecord;
  readonly expectedRevisionId: RevisionId | null | "absent";
  /**
   * The run saw the row unchanged, and the row differs from the stored one only in its seen-markers:
   * `lastSeenRunId` (this run), `observedAt` (this acceptance) and `status` (`unchanged`). A store may
   * record that once for the run instead of rewriting the row (decision 0042); reading the row must
   * then answer those markers all the same.
   */
  readonly seenOnly?: boolean;
}

export interface RunAcceptance {
  readonly run: RunRecord;
  readonly rows: ReadonlyArray<AcceptedRow>;
  readonly revisions: ReadonlyArray<NewRevision>;
  readonly observations: ReadonlyArray<SourceObservation>;
  readonly charge: { readonly ownerId: OwnerId; readonly pages: number; readonly entryId: string };
  readonly evidence: RunEvidence;
  /** The run as it is stored if it is held (the owner cannot pay, or drift): `held`, nothing else written. */
  readonly heldRun: RunRecord;
  /** The evidence stored with `heldRun`: its trace ends with a failed accept step. */
  readonly heldEvidence: RunEvidence;
  /**
   * What the run would write, kept with `heldRun` for a later accept (HeldOutcomeStorage); built
   * only when the store holds the run.
   */
  readonly heldOutcome: () => HeldOutcome;
  /** Hold the run whatever the balance: the drift rule tripped (decision 0040). */
  readonly holdForDrift?: boolean;
  /**
   * The owner accepts a `held` run's outcome (POST /v1/runs/{id}/accept): the stored run must be `held`
   * and still the dataset's newest run; a short balance writes nothing (`Unpaid`); on acceptance the
   * dataset's held outcome is dropped.
   */
  readonly acceptingHeld?: boolean;
  /**
   * Deterministic runs: every page the run read, to replace the dataset's kept page reads when the
   * run is accepted (nothing is kept for a held run). Absent: the store keeps what it has.
   */
  readonly pageReads?: PageReadsToKeep;
  /**
   * Digests of page bodies the store already holds: those it served the run with its kept reads
   * (decision 0042). A store that keeps bodies apart from their artifacts need not store these again.
   */
  readonly bodiesStored?: ReadonlyArray<string>;
}

export type AcceptanceOutcome =
  | { readonly _tag: "Accepted"; readonly run: RunRecord }
  | { readonly _tag: "Held"; readonly run: RunRecord }
  /** A row changed (an edit) since the engine read it: recompute and try again. */
  | { readonly _tag: "RowsChanged" }
  /** The run is no longer `running` (another delivery finished it): nothing was written. */
  | { readonly _tag: "AlreadyFinished"; readonly run: RunRecord }
  /** Accepting a held run: the balance is short; nothing was written. */
  | { readonly _tag: "Unpaid"; readonly balance: number };

/** Keyset position in the rows listing (updatedAt desc, id desc). */
export interface RowPosition {
  readonly updatedAt: string;
  readonly id: RowId;
}
