import {
  ApiKeyRecord,
  type DatasetColumn,
  DatasetRecord,
  type DatasetStatus,
  type HistoricalSchema,
  LedgerEntry,
  Owner,
  type OwnerId,
  type RecipeVersion,
  RunRecord,
  type RunStatus,
  RunSummary,
  type ScheduleState,
} from "@gleaner/core";
import type { ObjectId, UUID } from "mongodb";
import {
  fromDate,
  fromDateOrNull,
  fromUuid,
  fromUuidOrNull,
  toDate,
  toDateOrNull,
  toUuid,
  toUuidOrNull,
} from "./bson.js";
import { decodedOrThrow } from "./decoded.js";

// Owners, keys, datasets, runs and ledger entries as documents, and back. Top-level ids and
// timestamps (what is filtered, sorted or joined on) are native BSON UUID and Date. Nested
// JSON-shaped parts (columns, recipes, schemas, checks) keep the port's shape verbatim: nothing
// queries inside them, and a per-shape conversion would silently drift when core adds a field.
// Back from a document, every record is decoded with core's schema (decoded.ts), never cast.

export interface OwnerDoc {
  readonly _id: UUID;
  readonly name: string;
  readonly createdAt: Date;
}

export const ownerToDoc = (owner: Owner): OwnerDoc => ({
  _id: toUuid(owner.id),
  name: owner.name,
  createdAt: toDate(owner.createdAt),
});

const decodeOwner = decodedOrThrow(Owner, "owner");

export const ownerFromDoc = (doc: OwnerDoc): Owner =>
  decodeOwner({ id: fromUuid(doc._id), name: doc.name, createdAt: fromDate(doc.createdAt) });

/** Keyed by the SHA-256 hash of the key text: a lookup is one _id read. */
export interface ApiKeyDoc {
  readonly _id: string;
  readonly ownerId: UUID;
  readonly createdAt: Date;
  /** Absent on keys made before keys could be listed. */
  readonly keyId?: UUID;
  readonly name?: string | null;
  readonly prefix?: string | null;
  readonly lastFour?: string | null;
  readonly lastUsedAt?: Date | null;
}

export const apiKeyToDoc = (key: ApiKeyRecord): ApiKeyDoc => ({
  _id: key.hash,
  ownerId: toUuid(key.ownerId),
  createdAt: toDate(key.createdAt),
  ...(key.id ? { keyId: toUuid(key.id) } : {}),
  name: key.name ?? null,
  prefix: key.prefix ?? null,
  lastFour: key.lastFour ?? null,
  lastUsedAt: key.lastUsedAt ? toDate(key.lastUsedAt) : null,
});

const decodeApiKey = decodedOrThrow(ApiKeyRecord, "API key");

export const apiKeyFromDoc = (doc: ApiKeyDoc): ApiKeyRecord =>
  decodeApiKey({
    hash: doc._id,
    ownerId: fromUuid(doc.ownerId),
    createdAt: fromDate(doc.createdAt),
    ...(doc.keyId ? { id: fromUuid(doc.keyId) } : {}),
    name: doc.name ?? null,
    prefix: doc.prefix ?? null,
    lastFour: doc.lastFour ?? null,
    lastUsedAt: doc.lastUsedAt ? fromDate(doc.lastUsedAt) : null,
  });

/** The record's fields as stored; `lastSequence` (the revision counter) lives beside them. */
export interface DatasetFields {
  readonly ownerId: UUID;
  readonly name: string;
  readonly question: string | null;
  readonly columns: ReadonlyArray<DatasetColumn>;
  readonly schemaVersion: number;
  readonly status: DatasetStatus;
  readonly schedule: string | null;
  readonly scheduleState: ScheduleState | null;
  readonly botId: string;
  readonly recipes: ReadonlyArray<RecipeVersion>;
  readonly schemas: ReadonlyArray<HistoricalSchema>;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  readonly revision: number;
}

export interface DatasetDoc extends DatasetFields {
  readonly _id: UUID;
  /** The highest revision sequence handed out for this dataset; advanced with $inc in transactions. */
  readonly lastSequence: number;
}

/**
 * Everything an update replaces. `lastSequence` is deliberately absent: updateDataset uses $set
 * with these fields, so the revision counter survives a PATCH.
 */
export const datasetFields = (record: DatasetRecord): DatasetFields => ({
  ownerId: toUuid(record.ownerId),
  name: record.name,
  question: record.question,
  columns: record.columns,
  schemaVersion: record.schemaVersion,
  status: record.status,
  schedule: record.schedule,
  scheduleState: record.scheduleState,
  botId: record.botId,
  recipes: record.recipes,
  schemas: record.schemas,
  createdAt: toDate(record.createdAt),
  updatedAt: toDate(record.updatedAt),
  revision: record.revision,
});

/** A new dataset: its bot, recipe v1 and schema v1 are part of the one document. */
export const datasetToDoc = (record: DatasetRecord): DatasetDoc => ({
  _id: toUuid(record.id),
  ...datasetFields(record),
  lastSequence: 0,
});

const decodeDataset = decodedOrThrow(DatasetRecord, "dataset");

export const datasetFromDoc = (doc: DatasetDoc): DatasetRecord =>
  decodeDataset({
    id: fromUuid(doc._id),
    ownerId: fromUuid(doc.ownerId),
    name: doc.name,
    question: doc.question,
    columns: doc.columns,
    schemaVersion: doc.schemaVersion,
    status: doc.status,
    schedule: doc.schedule,
    scheduleState: doc.scheduleState,
    botId: doc.botId,
    recipes: doc.recipes,
    schemas: doc.schemas,
    createdAt: fromDate(doc.createdAt),
    updatedAt: fromDate(doc.updatedAt),
    revision: doc.revision,
  });

export interface RunDoc {
  readonly _id: UUID;
  readonly datasetId: UUID;
  readonly ownerId: UUID;
  readonly status: RunStatus;
  /**
   * True exactly while the run is queued or running. A unique index on datasetId filtered on
   * `active: true` is the store's "one run in progress per dataset" guard; an equality filter
   * works on every server version that has partial indexes (3.2+), unlike `$in` (7.0+).
   */
  readonly active: boolean;
  readonly trigger: RunRecord["trigger"];
  readonly checks: RunRecord["checks"];
  readonly rowDeltas: RunRecord["rowDeltas"];
  readonly error: string | null;
  readonly queuedAt: Date;
  readonly startedAt: Date | null;
  readonly completedAt: Date | null;
  /** Set once retention removed the run's record (evidence, artifacts). */
  readonly recordPruned?: boolean;
  readonly attempts: number;
  /** Present (true) only when the owner asked to accept the run despite drift. */
  readonly acceptDrift?: boolean;
  readonly chargedPages: number | null;
  /** Set by acceptRun to lock the run inside its transaction (see accept.ts); never read. */
  readonly txLock?: ObjectId;
}

export const isActiveStatus = (status: RunStatus): boolean => status === "queued" || status === "running";

export const runToDoc = (run: RunRecord): RunDoc => ({
  _id: toUuid(run.id),
  datasetId: toUuid(run.datasetId),
  ownerId: toUuid(run.ownerId),
  status: run.status,
  active: isActiveStatus(run.status),
  trigger: run.trigger,
  checks: run.checks,
  rowDeltas: run.rowDeltas,
  error: run.error,
  queuedAt: toDate(run.queuedAt),
  startedAt: toDateOrNull(run.startedAt),
  completedAt: toDateOrNull(run.completedAt),
  attempts: run.attempts,
  chargedPages: run.chargedPages,
  ...(run.acceptDrift ? { acceptDrift: true } : {}),
});

const decodeRun = decodedOrThrow(RunRecord, "run");

export const runFromDoc = (doc: RunDoc): RunRecord =>
  decodeRun({
    id: fromUuid(doc._id),
    datasetId: fromUuid(doc.datasetId),
    ownerId: fromUuid(doc.ownerId),
    status: doc.status,
    trigger: doc.trigger,
    checks: doc.checks,
    rowDeltas: doc.rowDeltas,
    error: doc.error,
    queuedAt: fromDate(doc.queuedAt),
    startedAt: fromDateOrNull(doc.startedAt),
    completedAt: fromDateOrNull(doc.completedAt),
    attempts: doc.attempts,
    chargedPages: doc.chargedPages,
    ...(doc.acceptDrift ? { acceptDrift: true } : {}),
  });

const decodeRunSummary = decodedOrThrow(RunSummary, "run");

export const runSummaryFromDoc = (doc: Pick<RunDoc, "_id" | "status" | "completedAt">): RunSummary =>
  decodeRunSummary({ id: fromUuid(doc._id), status: doc.status, completedAt: fromDateOrNull(doc.completedAt) });

/**
 * One credit account per owner: the balance (always the sum of the owner's ledger, both written
 * in one transaction) and the ledger's insertion counter. Writing this document is what
 * serialises two charges of one owner: concurrent transactions that both write it conflict, and
 * the loser is retried against the new balance.
 */
export interface AccountDoc {
  readonly _id: UUID;
  readonly balance: number;
  readonly ledgerSeq: number;
}

export interface LedgerDoc {
  readonly _id: UUID;
  readonly ownerId: UUID;
  /** Insertion order within the owner's ledger: newest first means seq desc, as memory's reversed array. */
  readonly seq: number;
  readonly kind: LedgerEntry["kind"];
  readonly amount: number;
  readonly runId: UUID | null;
  readonly datasetId: UUID | null;
  readonly pages: number | null;
  readonly createdAt: Date;
}

export const ledgerToDoc = (ownerId: OwnerId, seq: number, entry: LedgerEntry): LedgerDoc => ({
  _id: toUuid(entry.id),
  ownerId: toUuid(ownerId),
  seq,
  kind: entry.kind,
  amount: entry.amount,
  runId: toUuidOrNull(entry.runId),
  datasetId: toUuidOrNull(entry.datasetId),
  pages: entry.pages,
  createdAt: toDate(entry.createdAt),
});

const decodeLedgerEntry = decodedOrThrow(LedgerEntry, "ledger entry");

export const ledgerFromDoc = (doc: LedgerDoc): LedgerEntry =>
  decodeLedgerEntry({
    id: fromUuid(doc._id),
    kind: doc.kind,
    amount: doc.amount,
    runId: fromUuidOrNull(doc.runId),
    datasetId: fromUuidOrNull(doc.datasetId),
    pages: doc.pages,
    createdAt: fromDate(doc.createdAt),
  });
