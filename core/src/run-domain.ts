import { Schema, Struct } from "effect";
import type { ResearchRecipe } from "./schema/research.js";
import { RunArtifactWithBody } from "./schema/responses.js";
import { Run, type RunTrace } from "./schema/run.js";
import { DatasetId, OwnerId, type RevisionId, type RowId } from "./schema/ids.js";
import {
  CellOverrides,
  DatasetRow,
  FieldEvidence,
  ResearchRowIdentity,
  RowData,
  RowRevision,
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

/** What was recorded about one extracted record, for diagnostics (`entity=<rowKey>`). */
export interface RecordFact {
  readonly rowKey: string | null;
  readonly pageUrl: string;
  readonly index: number;
  readonly cells: ReadonlyArray<{
    readonly fieldId: string;
    readonly value: string | number | boolean | null;
    readonly missingReason: string | null;
    readonly raw: string | null;
  }>;
  /** Research runs: the entity the row stands for, the names it was seen under, and cell conflicts. */
  readonly entity?: {
    readonly kind: string;
    readonly anchor: string;
    readonly aliases: ReadonlyArray<string>;
    readonly pages: ReadonlyArray<string>;
    readonly conflicts: ReadonlyArray<{ readonly fieldId: string; readonly values: ReadonlyArray<string> }>;
  };
}

/** A read that did not yield a page, as recorded (stage `retrieval`, code = readFailure reason). */
export interface RecordedFailure {
  readonly stage: string;
  readonly code: string;
  readonly detail: string;
  readonly url: string | null;
  /** The trace step of the failed read: the failure's evidence id. Absent on older records. */
  readonly stepId?: string;
  /** The HTTP status the site answered, when it answered. Absent on older records. */
  readonly status?: number | null;
}

/** The recipe a run pinned: what it was asked to read and within which limits. */
export interface PinnedRecipe {
  readonly recipeVersion: number;
  readonly schemaVersion: number;
  readonly url: string;
  readonly pagination: string;
  readonly itemSelector: string;
  readonly maxPages: number;
  readonly maxItems: number;
  readonly minimumItems: number;
  readonly render: string;
  readonly proxy: string;
  readonly ignoreRobots: boolean;
  /** Field ids of the identity, in order. */
  readonly identityFieldIds: ReadonlyArray<string>;
}

/** What a check names: every record that made it fail. */
export interface CheckNames {
  readonly checkId: string;
  readonly records: ReadonlyArray<{ readonly rowKey: string | null; readonly pageUrl: string; readonly index: number }>;
}

/** The reconciliation the run computed against the current rows (applied only if accepted). */
export interface ReconciliationRecord {
  readonly new: number;
  readonly changed: number;
  readonly unchanged: number;
  readonly gone: number;
  /** Row id by rowKey for every row the plan touched or saw (new rows exist only once accepted). */
  readonly rowIds: Readonly<Record<string, string>>;
  /** rowKeys of rows the plan creates. */
  readonly created: ReadonlyArray<string>;
  /** rowKeys of rows not seen by this run (they go missing). */
  readonly goneKeys: ReadonlyArray<string>;
  /** rowKeys of rows whose source values changed (returned rows included). */
  readonly changedKeys: ReadonlyArray<string>;
  /** rowKeys of rows that were missing and are seen again. */
  readonly returnedKeys: ReadonlyArray<string>;
  /** Overridden cells whose manual value the plan kept. */
  readonly overridesKept: ReadonlyArray<{ readonly rowKey: string; readonly fieldId: string }>;
}

/**
 * What the engine decided besides reading, for diagnostics: the pinned recipe, each check's named
 * records, the reconciliation plan and the pages it would charge. Null on runs recorded before.
 */
export interface RunPlanRecord {
  readonly recipe: PinnedRecipe | null;
  readonly checks: ReadonlyArray<CheckNames>;
  readonly reconciliation: ReconciliationRecord | null;
  readonly pagesToCharge: number | null;
  /**
   * Row ids of rows that already existed for keys the run read, recorded when the run ended before
   * reconciliation (a failed check), so diagnostics can name the row a lost cell belongs to.
   */
  readonly knownRowIds?: Readonly<Record<string, string>>;
}

/** Everything a finished run leaves besides rows: its trace, artifacts and recorded facts. */
export interface RunEvidence {
  readonly trace: Omit<RunTrace, "status">;
  readonly artifacts: ReadonlyArray<RunArtifact>;
  /** The pinned research recipe; absent (null) for deterministic runs. */
  readonly recipe?: ResearchRecipe | null;
  readonly facts: ReadonlyArray<RecordFact>;
  readonly failures: ReadonlyArray<RecordedFailure>;
  readonly plan?: RunPlanRecord | null;
}

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
   * record that once for the run instead of rewriting the row (decision 0020); reading the row must
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
  /** The run as it is stored if the owner cannot pay: `held`, nothing else written. */
  readonly heldRun: RunRecord;
  /** The evidence stored with `heldRun`: its trace ends with a failed accept step. */
  readonly heldEvidence: RunEvidence;
}

export type AcceptanceOutcome =
  | { readonly _tag: "Accepted"; readonly run: RunRecord }
  | { readonly _tag: "Held"; readonly run: RunRecord }
  /** A row changed (an edit) since the engine read it: recompute and try again. */
  | { readonly _tag: "RowsChanged" }
  /** The run is no longer `running` (another delivery finished it): nothing was written. */
  | { readonly _tag: "AlreadyFinished"; readonly run: RunRecord };

/** Keyset position in the rows listing (updatedAt desc, id desc). */
export interface RowPosition {
  readonly updatedAt: string;
  readonly id: RowId;
}
