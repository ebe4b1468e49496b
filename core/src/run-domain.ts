import { Schema, Struct } from "effect";
import { Run, type RunTrace } from "./schema/run.js";
import { type DatasetId, OwnerId, type RevisionId, type RowId, type RunId } from "./schema/ids.js";
import type {
  CellOverrides,
  FieldEvidence,
  MissingReasons,
  Presence,
  RowData,
  RowRevision,
  RowStatus,
  SourceObservation,
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

/** A page body recorded at the reading boundary (endpoint 12/13). */
export interface RunArtifact {
  readonly id: string;
  readonly runId: RunId;
  readonly kind: "page";
  readonly url: string;
  readonly contentType: string;
  readonly sha256: string;
  readonly size: number;
  readonly truncated: boolean;
  /** Null when the body exceeded 64 KiB: the hash and size still describe it. */
  readonly body: string | null;
  readonly createdAt: string;
}

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
}

/** Everything a finished run leaves besides rows: its trace, artifacts and recorded facts. */
export interface RunEvidence {
  readonly trace: Omit<RunTrace, "status">;
  readonly artifacts: ReadonlyArray<RunArtifact>;
  readonly facts: ReadonlyArray<RecordFact>;
  readonly failures: ReadonlyArray<{
    readonly stage: string;
    readonly code: string;
    readonly detail: string;
    readonly url: string | null;
  }>;
}

/** The current state of one row. `revisionId` is the head of its revision chain. */
export interface RowRecord {
  readonly id: RowId;
  readonly datasetId: DatasetId;
  readonly rowKey: string;
  readonly data: RowData;
  readonly evidence: FieldEvidence;
  readonly overrides: CellOverrides;
  readonly missingReasons: MissingReasons;
  readonly presence: Presence;
  readonly status: RowStatus;
  readonly firstSeenRunId: RunId;
  readonly lastSeenRunId: RunId;
  readonly sourceUrl: string;
  readonly observedAt: string;
  readonly updatedAt: string;
  readonly revisionId: RevisionId | null;
}

/** A revision as stored: sequence assigned by the store, `before` kept for the change feed. */
export interface StoredRevision extends RowRevision {
  readonly before: RowData | null;
  readonly beforeOverrides: CellOverrides | null;
}

/** A revision to append; the store assigns the next per-dataset `sequence` atomically. */
export type NewRevision = Omit<StoredRevision, "sequence">;

/**
 * One accepted run, written in one transaction: the rows it touched (each guarded by the revision
 * the engine read), their new revisions, the page observations, the charge and the run's final state.
 */
export interface RunAcceptance {
  readonly run: RunRecord;
  readonly rows: ReadonlyArray<{ readonly row: RowRecord; readonly expectedRevisionId: RevisionId | null | "absent" }>;
  readonly revisions: ReadonlyArray<NewRevision>;
  readonly observations: ReadonlyArray<SourceObservation>;
  readonly charge: { readonly ownerId: OwnerId; readonly pages: number; readonly entryId: string };
  readonly evidence: RunEvidence;
  /** The run as it is stored if the owner cannot pay: `held`, nothing else written. */
  readonly heldRun: RunRecord;
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
