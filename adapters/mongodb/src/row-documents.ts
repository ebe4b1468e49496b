import {
  type CellOverrides,
  type FieldEvidence,
  type MissingReasons,
  type NewRevision,
  type Presence,
  ResearchRecipe,
  type ResearchRowIdentity,
  type RowData,
  RowRecord,
  type RowRevision,
  type RowStatus,
  RecordedTrace,
  RunArtifact,
  RunArtifactEntry,
  type RunEvidence,
  RunEvidenceRecord,
  type RunId,
  SourceObservation,
  StoredRevision,
} from "@gleaner/core";
import * as Schema from "effect/Schema";
import type { UUID } from "mongodb";
import { fromDate, fromUuid, fromUuidOrNull, toDate, toUuid, toUuidOrNull } from "./bson.js";
import { decodedOrThrow } from "./decoded.js";

// Rows, revisions, observations and run evidence as documents, and back. The maps keyed by field
// id (data, evidence, overrides, missingReasons) are embedded documents whose keys are field ids:
// UUID strings, which are valid field names. `changedFieldIds` stays an array of those strings,
// because it names keys of those maps and the change feed filters on it by string.

export interface RowDoc {
  readonly _id: UUID;
  readonly datasetId: UUID;
  readonly rowKey: string;
  readonly data: RowData;
  readonly evidence: FieldEvidence;
  readonly overrides: CellOverrides;
  readonly missingReasons: MissingReasons;
  readonly presence: Presence;
  readonly status: RowStatus;
  readonly firstSeenRunId: UUID;
  readonly lastSeenRunId: UUID;
  readonly sourceUrl: string;
  readonly observedAt: Date;
  readonly updatedAt: Date;
  readonly revisionId: UUID | null;
  /** A research run's entity identity; absent for deterministic rows. */
  readonly identity?: ResearchRowIdentity;
}

export const rowToDoc = (row: RowRecord): RowDoc => ({
  _id: toUuid(row.id),
  datasetId: toUuid(row.datasetId),
  rowKey: row.rowKey,
  data: row.data,
  evidence: row.evidence,
  overrides: row.overrides,
  missingReasons: row.missingReasons,
  presence: row.presence,
  status: row.status,
  firstSeenRunId: toUuid(row.firstSeenRunId),
  lastSeenRunId: toUuid(row.lastSeenRunId),
  sourceUrl: row.sourceUrl,
  observedAt: toDate(row.observedAt),
  updatedAt: toDate(row.updatedAt),
  revisionId: toUuidOrNull(row.revisionId),
  ...(row.identity ? { identity: row.identity } : {}),
});

const decodeRow = decodedOrThrow(RowRecord, "row");

export const rowFromDoc = (doc: RowDoc): RowRecord =>
  decodeRow({
    id: fromUuid(doc._id),
    datasetId: fromUuid(doc.datasetId),
    rowKey: doc.rowKey,
    data: doc.data,
    evidence: doc.evidence,
    overrides: doc.overrides,
    missingReasons: doc.missingReasons,
    presence: doc.presence,
    status: doc.status,
    firstSeenRunId: fromUuid(doc.firstSeenRunId),
    lastSeenRunId: fromUuid(doc.lastSeenRunId),
    sourceUrl: doc.sourceUrl,
    observedAt: fromDate(doc.observedAt),
    updatedAt: fromDate(doc.updatedAt),
    revisionId: fromUuidOrNull(doc.revisionId),
    ...(doc.identity ? { identity: doc.identity } : {}),
  });

export interface RevisionDoc {
  readonly _id: UUID;
  readonly datasetId: UUID;
  readonly rowId: UUID;
  /** Gapless per dataset, unique with datasetId; assigned from the dataset's counter. */
  readonly sequence: number;
  readonly schemaVersion: number;
  readonly previousRevisionId: UUID | null;
  readonly runId: UUID | null;
  readonly actorId: UUID | null;
  readonly requestId: string | null;
  readonly requestHash: string | null;
  readonly origin: RowRevision["origin"];
  readonly kind: RowRevision["kind"];
  readonly changedFieldIds: ReadonlyArray<string>;
  readonly data: RowData;
  readonly evidence: FieldEvidence;
  readonly overrides: CellOverrides;
  readonly missingReasons: MissingReasons;
  readonly presence: Presence;
  readonly createdAt: Date;
  readonly before: RowData | null;
  readonly beforeOverrides: CellOverrides | null;
}

export const revisionToDoc = (revision: NewRevision, sequence: number): RevisionDoc => ({
  _id: toUuid(revision.id),
  datasetId: toUuid(revision.datasetId),
  rowId: toUuid(revision.rowId),
  sequence,
  schemaVersion: revision.schemaVersion,
  previousRevisionId: toUuidOrNull(revision.previousRevisionId),
  runId: toUuidOrNull(revision.runId),
  actorId: toUuidOrNull(revision.actorId),
  requestId: revision.requestId,
  requestHash: revision.requestHash,
  origin: revision.origin,
  kind: revision.kind,
  changedFieldIds: revision.changedFieldIds,
  data: revision.data,
  evidence: revision.evidence,
  overrides: revision.overrides,
  missingReasons: revision.missingReasons,
  presence: revision.presence,
  createdAt: toDate(revision.createdAt),
  before: revision.before,
  beforeOverrides: revision.beforeOverrides,
});

const decodeRevision = decodedOrThrow(StoredRevision, "revision");

export const revisionFromDoc = (doc: RevisionDoc): StoredRevision =>
  decodeRevision({
    id: fromUuid(doc._id),
    datasetId: fromUuid(doc.datasetId),
    rowId: fromUuid(doc.rowId),
    sequence: doc.sequence,
    schemaVersion: doc.schemaVersion,
    previousRevisionId: fromUuidOrNull(doc.previousRevisionId),
    runId: fromUuidOrNull(doc.runId),
    actorId: fromUuidOrNull(doc.actorId),
    requestId: doc.requestId,
    requestHash: doc.requestHash,
    origin: doc.origin,
    kind: doc.kind,
    changedFieldIds: doc.changedFieldIds,
    data: doc.data,
    evidence: doc.evidence,
    overrides: doc.overrides,
    missingReasons: doc.missingReasons,
    presence: doc.presence,
    createdAt: fromDate(doc.createdAt),
    before: doc.before,
    beforeOverrides: doc.beforeOverrides,
  });

type ObservationRest = Omit<SourceObservation, "id" | "observedAt" | "datasetId" | "runId">;

export interface ObservationDoc extends ObservationRest {
  readonly _id: UUID;
  readonly observedAt: Date;
  readonly datasetId?: UUID;
  readonly runId?: UUID;
}

/** Optional fields stay absent (not null) both ways, so an observation reads back deep-equal. */
export const observationToDoc = (observation: SourceObservation): ObservationDoc => {
  const { id, observedAt, datasetId, runId, ...rest } = observation;
  return {
    _id: toUuid(id),
    ...dropUndefined(rest),
    observedAt: toDate(observedAt),
    ...(datasetId === undefined ? {} : { datasetId: toUuid(datasetId) }),
    ...(runId === undefined ? {} : { runId: toUuid(runId) }),
  };
};

const decodeObservation = decodedOrThrow(SourceObservation, "observation");

export const observationFromDoc = (doc: ObservationDoc): SourceObservation => {
  const { _id, observedAt, datasetId, runId, ...rest } = doc;
  return decodeObservation({
    id: fromUuid(_id),
    ...dropUndefined(rest),
    observedAt: fromDate(observedAt),
    ...(datasetId === undefined ? {} : { datasetId: fromUuid(datasetId) }),
    ...(runId === undefined ? {} : { runId: fromUuid(runId) }),
  });
};

const dropUndefined = <A extends object>(value: A): A =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as A;

/** A run's trace, facts and failures; artifacts live in their own collection (see ArtifactDoc). */
export interface EvidenceDoc {
  readonly _id: UUID;
  readonly trace: RunEvidence["trace"];
  readonly facts: RunEvidence["facts"];
  readonly failures: RunEvidence["failures"];
  /** Absent on runs recorded before the plan was kept. */
  readonly plan?: RunEvidence["plan"];
  /** A research run's pinned recipe; absent for deterministic runs. */
  readonly recipe?: ResearchRecipe;
}

export interface TraceProgressDoc {
  readonly _id: UUID;
  readonly trace: RunEvidence["trace"];
}

export const evidenceToDoc = (runId: RunId, evidence: RunEvidence): EvidenceDoc => ({
  _id: toUuid(runId),
  trace: evidence.trace,
  facts: evidence.facts,
  failures: evidence.failures,
  plan: evidence.plan ?? null,
  ...(evidence.recipe ? { recipe: evidence.recipe } : {}),
});

/**
 * One page body per document: a run may read hundreds of pages of up to 64 KiB each, which one
 * document (16 MiB at most) could not hold. `position` keeps the evidence's order.
 */
export interface ArtifactDoc {
  readonly runId: UUID;
  readonly position: number;
  readonly artifactId: string;
  readonly kind: RunArtifact["kind"];
  readonly url: string;
  readonly contentType: string;
  readonly sha256: string;
  readonly size: number;
  readonly truncated: boolean;
  readonly body: string | null;
  readonly createdAt: Date;
}

/** Keyed by the run whose evidence it is (as the PostgreSQL store does), in evidence order. */
export const artifactToDoc = (runId: RunId, artifact: RunArtifact, position: number): ArtifactDoc => ({
  runId: toUuid(runId),
  position,
  artifactId: artifact.id,
  kind: artifact.kind,
  url: artifact.url,
  contentType: artifact.contentType,
  sha256: artifact.sha256,
  size: artifact.size,
  truncated: artifact.truncated,
  body: artifact.body,
  createdAt: toDate(artifact.createdAt),
});

const decodeArtifact = decodedOrThrow(RunArtifact, "artifact");
const decodeArtifactEntry = decodedOrThrow(RunArtifactEntry, "artifact");

const artifactFields = (doc: Omit<ArtifactDoc, "body">) => ({
  id: doc.artifactId,
  runId: fromUuid(doc.runId),
  kind: doc.kind,
  url: doc.url,
  contentType: doc.contentType,
  sha256: doc.sha256,
  size: doc.size,
  truncated: doc.truncated,
  createdAt: fromDate(doc.createdAt),
});

export const artifactFromDoc = (doc: ArtifactDoc): RunArtifact =>
  decodeArtifact({ ...artifactFields(doc), body: doc.body });

/** An artifact document read without its body (`artifactWithoutBody`), decoded as the index lists it. */
export const artifactEntryFromDoc = (doc: Omit<ArtifactDoc, "body">): RunArtifactEntry =>
  decodeArtifactEntry(artifactFields(doc));

/** The projection that leaves an artifact document's body on the server. */
export const artifactWithoutBody = { body: 0 } as const;

const decodeRecipe = decodedOrThrow(Schema.NullOr(ResearchRecipe), "research recipe");

/** An evidence document's recipe (read alone), decoded; null for a deterministic run. */
export const recipeFromDoc = (doc: Pick<EvidenceDoc, "_id" | "recipe">): ResearchRecipe | null =>
  decodeRecipe(doc.recipe ?? null, fromUuid(doc._id));

const decodeEvidence = decodedOrThrow(RunEvidenceRecord, "run evidence");

/** The evidence document decoded (never cast), with its artifacts in evidence order. */
export const evidenceFromDocs = (doc: EvidenceDoc, artifacts: ReadonlyArray<ArtifactDoc>): RunEvidence => {
  const runId = fromUuid(doc._id);
  const evidence = decodeEvidence(
    {
      trace: doc.trace,
      facts: doc.facts,
      failures: doc.failures,
      plan: doc.plan ?? null,
      ...(doc.recipe ? { recipe: doc.recipe } : {}),
    },
    runId,
  );
  return { ...evidence, artifacts: artifacts.map(artifactFromDoc) };
};

const decodeTrace = decodedOrThrow(RecordedTrace, "run trace");

/** The trace of a run in flight, kept as progress, decoded. */
export const traceFromDoc = (doc: TraceProgressDoc): RecordedTrace => decodeTrace(doc.trace, fromUuid(doc._id));
