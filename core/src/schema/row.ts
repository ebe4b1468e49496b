import * as Schema from "effect/Schema";
import { DatasetColumn } from "./column.js";
import { DatasetId, DateTime, FieldId, ObservationId, RevisionId, RowId, RunId, SchemaId } from "./ids.js";

export const Scalar = Schema.Union(Schema.String, Schema.Number, Schema.Boolean, Schema.Null);
export type Scalar = typeof Scalar.Type;
export const RowData = Schema.Record({ key: Schema.String, value: Scalar });
export type RowData = typeof RowData.Type;

export const MissingReason = Schema.Literal("unknown", "not_found", "not_applicable", "extraction_failed");
export type MissingReason = typeof MissingReason.Type;
export const MissingReasons = Schema.Record({ key: Schema.String, value: MissingReason });
export type MissingReasons = typeof MissingReasons.Type;

export const EvidenceRef = Schema.Struct({ observationId: ObservationId, entryId: Schema.String });
export type EvidenceRef = typeof EvidenceRef.Type;
export const FieldEvidence = Schema.Record({ key: Schema.String, value: Schema.Array(EvidenceRef) });
export type FieldEvidence = typeof FieldEvidence.Type;

export const CellOverride = Schema.Struct({
  value: Scalar,
  evidence: Schema.Array(EvidenceRef),
  missingReason: Schema.optional(MissingReason),
});
export type CellOverride = typeof CellOverride.Type;
export const CellOverrides = Schema.Record({ key: Schema.String, value: CellOverride });
export type CellOverrides = typeof CellOverrides.Type;

export const RowStatus = Schema.Literal("new", "changed", "unchanged", "gone");
export type RowStatus = typeof RowStatus.Type;
export const Presence = Schema.Literal("present", "missing");
export type Presence = typeof Presence.Type;

export const ResearchRowIdentity = Schema.Struct({
  version: Schema.Literal(1),
  key: Schema.String.pipe(Schema.pattern(/^entity:[0-9a-f]{64}$/)),
  kind: Schema.Literal("company", "person", "product", "event", "trend", "other"),
  anchor: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(4096)),
  aliases: Schema.Array(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200))).pipe(
    Schema.minItems(1),
    Schema.maxItems(100),
  ),
});

export type ResearchRowIdentity = typeof ResearchRowIdentity.Type;

export const DatasetRow = Schema.Struct({
  id: RowId,
  rowKey: Schema.String,
  identity: Schema.NullOr(ResearchRowIdentity),
  data: RowData,
  revisionId: Schema.NullOr(RevisionId),
  presence: Presence,
  missingReasons: MissingReasons,
  status: RowStatus,
  firstSeenRunId: RunId,
  lastSeenRunId: RunId,
  sourceUrl: Schema.String,
  observedAt: DateTime,
  updatedAt: DateTime,
}).annotations({ identifier: "DatasetRow" });
export type DatasetRow = typeof DatasetRow.Type;

export const ObservationEntry = Schema.Struct({
  id: Schema.String,
  excerpt: Schema.String,
  truncated: Schema.Boolean,
});
export type ObservationEntry = typeof ObservationEntry.Type;

export const SourceObservation = Schema.Struct({
  id: ObservationId,
  sourceUrl: Schema.String,
  observedAt: DateTime,
  contentDigest: Schema.String,
  entries: Schema.Array(ObservationEntry),
  datasetId: Schema.optional(DatasetId),
  runId: Schema.optional(RunId),
  localId: Schema.optional(Schema.String),
  sourceKey: Schema.optional(Schema.String),
  scopeKey: Schema.optional(Schema.String),
  pageKey: Schema.optional(Schema.String),
  method: Schema.optional(Schema.Literal("deterministic", "model")),
}).annotations({ identifier: "SourceObservation" });
export type SourceObservation = typeof SourceObservation.Type;

export const RowDetail = Schema.Struct({
  ...DatasetRow.fields,
  datasetId: DatasetId,
  evidence: FieldEvidence,
  overrides: CellOverrides,
  observations: Schema.Array(SourceObservation),
}).annotations({ identifier: "RowDetail" });
export type RowDetail = typeof RowDetail.Type;

export const RowRevision = Schema.Struct({
  id: RevisionId,
  datasetId: DatasetId,
  rowId: RowId,
  sequence: Schema.Int,
  schemaVersion: Schema.Int,
  previousRevisionId: Schema.NullOr(RevisionId),
  runId: Schema.NullOr(RunId),
  actorId: Schema.NullOr(Schema.UUID),
  requestId: Schema.NullOr(Schema.String),
  requestHash: Schema.NullOr(Schema.String),
  origin: Schema.Literal("collection", "user", "migration"),
  kind: Schema.Literal("created", "updated", "missing", "returned", "baseline"),
  changedFieldIds: Schema.Array(FieldId),
  data: RowData,
  evidence: FieldEvidence,
  overrides: CellOverrides,
  missingReasons: MissingReasons,
  presence: Presence,
  createdAt: DateTime,
}).annotations({ identifier: "RowRevision" });
export type RowRevision = typeof RowRevision.Type;

export const HistoricalSchema = Schema.Struct({
  id: SchemaId,
  datasetId: DatasetId,
  version: Schema.Int,
  fields: Schema.Array(DatasetColumn),
  createdAt: DateTime,
}).annotations({ identifier: "HistoricalSchema" });
export type HistoricalSchema = typeof HistoricalSchema.Type;

export const ChangePage = Schema.Struct({
  data: Schema.Array(
    Schema.Struct({
      ...RowRevision.fields,
      beforeOverrides: Schema.optional(CellOverrides),
      before: Schema.optional(Schema.NullOr(RowData)),
    }),
  ),
  schemas: Schema.Array(HistoricalSchema),
  observations: Schema.Array(SourceObservation),
  through: Schema.Int,
  nextAfter: Schema.NullOr(Schema.Int),
}).annotations({ identifier: "ChangePage" });
export type ChangePage = typeof ChangePage.Type;
