import type { Collection, Db, IndexDescription } from "mongodb";
import type { AccountDoc, ApiKeyDoc, DatasetDoc, LedgerDoc, OwnerDoc, RunDoc } from "./documents.js";
import type {
  ArtifactDoc,
  EvidenceDoc,
  ObservationDoc,
  RevisionDoc,
  RowDoc,
  TraceProgressDoc,
} from "./row-documents.js";
import type {
  HeldOutcomeDoc,
  PageReadDoc,
  WebhookAttemptDoc,
  WebhookDoc,
  WebhookMessageDoc,
} from "./collection-documents.js";

/**
 * Every collection and index the store uses, created on start (the package README lists them). Unique
 * indexes are the guards the port names; their names are what duplicate key errors are mapped
 * by, so they are fixed here and nowhere else.
 */
export const indexNames = {
  ownerName: "owners_name",
  datasetOwnerName: "datasets_owner_name",
  oneActiveRunPerDataset: "runs_one_active_per_dataset",
  revisionSequence: "revisions_dataset_sequence",
  revisionRequest: "revisions_dataset_request",
  oneChargePerRun: "ledger_one_charge_per_run",
} as const;

export const collectionIndexes = {
  owners: [{ key: { name: 1 }, name: indexNames.ownerName, unique: true }],
  api_keys: [{ key: { ownerId: 1 }, name: "api_keys_owner" }],
  datasets: [
    { key: { ownerId: 1, name: 1 }, name: indexNames.datasetOwnerName, unique: true },
    { key: { ownerId: 1, createdAt: -1, _id: -1 }, name: "datasets_owner_newest" },
    { key: { "scheduleState.status": 1 }, name: "datasets_routine_status" },
  ],
  runs: [
    {
      key: { datasetId: 1 },
      name: indexNames.oneActiveRunPerDataset,
      unique: true,
      partialFilterExpression: { active: true },
    },
    { key: { datasetId: 1, queuedAt: -1, _id: -1 }, name: "runs_dataset_newest" },
  ],
  run_evidence: [],
  run_trace_progress: [],
  run_artifacts: [{ key: { runId: 1, position: 1 }, name: "run_artifacts_run_position", unique: true }],
  rows: [{ key: { datasetId: 1, updatedAt: -1, _id: -1 }, name: "rows_dataset_newest" }],
  revisions: [
    { key: { datasetId: 1, sequence: 1 }, name: indexNames.revisionSequence, unique: true },
    {
      key: { datasetId: 1, requestId: 1 },
      name: indexNames.revisionRequest,
      unique: true,
      // Only edits carry a requestId; collection revisions (null) must not collide with each other.
      partialFilterExpression: { requestId: { $type: "string" } },
    },
  ],
  observations: [],
  page_reads: [{ key: { datasetId: 1, url: 1 }, name: "page_reads_dataset_url", unique: true }],
  accounts: [],
  held_outcomes: [],
  ledger: [
    {
      key: { runId: 1 },
      name: indexNames.oneChargePerRun,
      unique: true,
      partialFilterExpression: { kind: "charge" },
    },
    { key: { ownerId: 1, seq: -1 }, name: "ledger_owner_newest" },
  ],
  webhooks: [{ key: { ownerId: 1, createdAt: 1 }, name: "webhooks_owner" }],
  webhook_messages: [
    {
      key: { datasetId: 1, position: 1 },
      name: "webhook_messages_pending",
      partialFilterExpression: { status: "pending" },
    },
    { key: { webhookId: 1 }, name: "webhook_messages_webhook" },
    // Retention: settled messages by the age of their event.
    { key: { status: 1, createdAt: 1 }, name: "webhook_messages_settled" },
  ],
  webhook_attempts: [
    { key: { webhookId: 1, attemptedAt: -1 }, name: "webhook_attempts_recent" },
    { key: { messageId: 1 }, name: "webhook_attempts_message" },
  ],
} as const satisfies Record<string, ReadonlyArray<IndexDescription>>;

export type CollectionName = keyof typeof collectionIndexes;

export interface Collections {
  readonly owners: Collection<OwnerDoc>;
  readonly apiKeys: Collection<ApiKeyDoc>;
  readonly datasets: Collection<DatasetDoc>;
  readonly runs: Collection<RunDoc>;
  readonly evidence: Collection<EvidenceDoc>;
  /** The trace of each run in flight (the final one is in run_evidence). */
  readonly traceProgress: Collection<TraceProgressDoc>;
  readonly artifacts: Collection<ArtifactDoc>;
  readonly rows: Collection<RowDoc>;
  readonly revisions: Collection<RevisionDoc>;
  readonly observations: Collection<ObservationDoc>;
  /** The page reads of each dataset's newest accepted run (decision 0042). */
  readonly pageReads: Collection<PageReadDoc>;
  readonly accounts: Collection<AccountDoc>;
  /** The newest held run's outcome of each dataset, by dataset id (decision 0040). */
  readonly heldOutcomes: Collection<HeldOutcomeDoc>;
  readonly ledger: Collection<LedgerDoc>;
  readonly webhooks: Collection<WebhookDoc>;
  /** The webhook outbox, written in acceptRun's and finishRun's transactions. */
  readonly webhookMessages: Collection<WebhookMessageDoc>;
  readonly webhookAttempts: Collection<WebhookAttemptDoc>;
}

export const collectionsOf = (db: Db): Collections => ({
  owners: db.collection<OwnerDoc>("owners"),
  apiKeys: db.collection<ApiKeyDoc>("api_keys"),
  datasets: db.collection<DatasetDoc>("datasets"),
  runs: db.collection<RunDoc>("runs"),
  evidence: db.collection<EvidenceDoc>("run_evidence"),
  traceProgress: db.collection<TraceProgressDoc>("run_trace_progress"),
  artifacts: db.collection<ArtifactDoc>("run_artifacts"),
  rows: db.collection<RowDoc>("rows"),
  revisions: db.collection<RevisionDoc>("revisions"),
  observations: db.collection<ObservationDoc>("observations"),
  pageReads: db.collection<PageReadDoc>("page_reads"),
  accounts: db.collection<AccountDoc>("accounts"),
  heldOutcomes: db.collection<HeldOutcomeDoc>("held_outcomes"),
  ledger: db.collection<LedgerDoc>("ledger"),
  webhooks: db.collection<WebhookDoc>("webhooks"),
  webhookMessages: db.collection<WebhookMessageDoc>("webhook_messages"),
  webhookAttempts: db.collection<WebhookAttemptDoc>("webhook_attempts"),
});

const codeNameOf = (error: unknown): string | undefined => {
  const codeName = (error as { codeName?: unknown } | null | undefined)?.codeName;
  return typeof codeName === "string" ? codeName : undefined;
};

/** Another process started at the same moment is building the same index: wait and ask again. */
const isConcurrentIndexBuild = (error: unknown): boolean =>
  ["IndexBuildAlreadyInProgress", "IndexBuildAborted"].includes(codeNameOf(error) ?? "");

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Creates what is missing; safe to run from every process at every start. Collections are
 * created explicitly because servers before 4.4 cannot create one inside a transaction. An
 * index that already exists with the same name and options is a no-op for createIndexes; one
 * with the same name but other options fails (IndexOptionsConflict / IndexKeySpecsConflict) and
 * stops the start with that error, rather than running on a guard that is not there.
 */
export const ensureSchema = async (db: Db): Promise<void> => {
  const existing = new Set(
    (await db.listCollections({}, { nameOnly: true }).toArray()).map((collection) => collection.name),
  );
  for (const name of Object.keys(collectionIndexes) as CollectionName[]) {
    if (existing.has(name)) continue;
    try {
      await db.createCollection(name);
    } catch (error) {
      if (codeNameOf(error) !== "NamespaceExists") throw error;
    }
  }
  for (const [name, indexes] of Object.entries(collectionIndexes)) {
    if (indexes.length === 0) continue;
    for (let attempt = 1; ; attempt++) {
      try {
        await db.collection(name).createIndexes(indexes.map((index) => ({ ...index })) as IndexDescription[]);
        break;
      } catch (error) {
        if (!isConcurrentIndexBuild(error) || attempt >= 10) throw error;
        await sleep(500 * attempt);
      }
    }
  }
};
