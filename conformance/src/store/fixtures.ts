import {
  Credits,
  type DatasetId,
  type DatasetRecord,
  type NewRevision,
  newId,
  type Owner,
  type OwnerId,
  type RevisionId,
  type RowId,
  type RowRecord,
  type RunAcceptance,
  type RunEvidence,
  type RunId,
  type RunRecord,
  Storage,
} from "@gleaner/core";
import * as Effect from "effect/Effect";

// Minimal, internally consistent records for exercising a store directly through the Storage port
// (the HTTP suite covers the same methods through the real engine), and for adapters' mapping tests.

const at = (offsetMs = 0) => new Date(Date.UTC(2026, 10, 1) + offsetMs).toISOString();

export const anOwner = (): Owner => ({ id: newId<OwnerId>(), name: `owner-${newId()}`, createdAt: at() });

export const aDataset = (ownerId: OwnerId, name = `dataset-${newId()}`): DatasetRecord => ({
  id: newId<DatasetId>(),
  ownerId,
  name,
  question: null,
  columns: [],
  schemaVersion: 1,
  status: "active",
  schedule: null,
  scheduleState: null,
  botId: newId(),
  recipes: [],
  schemas: [],
  createdAt: at(),
  updatedAt: at(),
  revision: 1,
});

export const aQueuedRun = (dataset: DatasetRecord, queuedOffsetMs = 0): RunRecord => ({
  id: newId<RunId>(),
  datasetId: dataset.id,
  ownerId: dataset.ownerId,
  status: "queued",
  trigger: "manual",
  checks: [],
  rowDeltas: { new: 0, changed: 0, gone: 0 },
  error: null,
  queuedAt: at(queuedOffsetMs),
  startedAt: null,
  completedAt: null,
  attempts: 0,
  chargedPages: null,
});

export const evidenceOf = (run: RunRecord): RunEvidence => ({
  trace: {
    runId: run.id,
    datasetId: run.datasetId,
    queueMs: 1,
    wallMs: 2,
    truncated: false,
    phases: [],
    steps: [],
    discovery: null,
    harnessVersion: null,
  },
  artifacts: [
    {
      id: "page-1",
      runId: run.id,
      kind: "page",
      url: "http://127.0.0.1/page-1",
      contentType: "text/html",
      sha256: "0".repeat(64),
      size: 9,
      truncated: false,
      body: "<p>a\u0000b</p>",
      createdAt: at(5),
    },
  ],
  facts: [],
  failures: [],
  plan: {
    recipe: null,
    checks: [{ checkId: "identity", records: [{ rowKey: null, pageUrl: "http://127.0.0.1/page-1", index: 0 }] }],
    reconciliation: null,
    pagesToCharge: 1,
  },
});

/** A new row with its `created` revision, ready to be accepted (expected head: absent). */
export const aNewRow = (run: RunRecord, rowKey: string): { row: RowRecord; revision: NewRevision } => {
  const rowId = newId<RowId>();
  const revisionId = newId<RevisionId>();
  const data = { [newId()]: rowKey };
  const row: RowRecord = {
    id: rowId,
    datasetId: run.datasetId,
    rowKey,
    data,
    evidence: {},
    overrides: {},
    missingReasons: {},
    presence: "present",
    status: "new",
    firstSeenRunId: run.id,
    lastSeenRunId: run.id,
    sourceUrl: "http://127.0.0.1/page-1",
    observedAt: at(4),
    updatedAt: at(5),
    revisionId,
  };
  const revision: NewRevision = {
    id: revisionId,
    datasetId: run.datasetId,
    rowId,
    schemaVersion: 1,
    previousRevisionId: null,
    runId: run.id,
    actorId: null,
    requestId: null,
    requestHash: null,
    origin: "collection",
    kind: "created",
    changedFieldIds: [],
    data,
    evidence: {},
    overrides: {},
    missingReasons: {},
    presence: "present",
    createdAt: at(5),
    before: null,
    beforeOverrides: null,
  };
  return { row, revision };
};

/** Accepting `running` with `rowKeys` new rows, charging `pages`. */
export const anAcceptance = (running: RunRecord, pages: number, rowKeys: ReadonlyArray<string>): RunAcceptance => {
  const created = rowKeys.map((key) => aNewRow(running, key));
  const completed = { ...running, completedAt: at(10), rowDeltas: { new: created.length, changed: 0, gone: 0 } };
  return {
    run: { ...completed, status: "succeeded", chargedPages: pages },
    rows: created.map(({ row }) => ({ row, expectedRevisionId: "absent" as const })),
    revisions: created.map(({ revision }) => revision),
    observations: [],
    charge: { ownerId: running.ownerId, pages, entryId: newId() },
    evidence: evidenceOf(running),
    heldRun: { ...completed, status: "held", error: "insufficient credits" },
    heldEvidence: { ...evidenceOf(running), artifacts: [] },
    heldOutcome: () => ({
      runId: running.id,
      datasetId: running.datasetId,
      reason: "credits",
      schemaVersion: 1,
      columns: [],
      pages,
      rowsDigest: "d",
      records: rowKeys.map((rowKey, index) => ({
        pageUrl: "http://127.0.0.1/page-1",
        index,
        entryId: String(index),
        rowKey,
        cells: { title: { value: rowKey, missingReason: null, raw: rowKey } },
      })),
      observations: [],
    }),
  };
};

/** `acceptance` keeping a read of its first page (its artifact's body), as a run a later run may reuse. */
export const withPageRead = (acceptance: RunAcceptance): RunAcceptance => {
  const [page] = acceptance.evidence.artifacts;
  return {
    ...acceptance,
    pageReads: {
      recipe: "recipe-1",
      pages: [
        {
          url: page!.url,
          finalUrl: page!.url,
          sha256: page!.sha256,
          contentType: page!.contentType,
          etag: null,
          lastModified: null,
          extraction: { records: [], entries: [], next: null },
          reused: false,
          body: page!.body!,
        },
      ],
    },
  };
};

/** A user edit of `row` (its head is the expected revision), with its own request id. */
export const anEdit = (row: RowRecord, requestId: string): { row: RowRecord; revision: NewRevision } => {
  const revisionId = newId<RevisionId>();
  const data = { ...row.data, [newId()]: requestId };
  return {
    row: { ...row, data, revisionId, status: "changed", updatedAt: at(20) },
    revision: {
      id: revisionId,
      datasetId: row.datasetId,
      rowId: row.id,
      schemaVersion: 1,
      previousRevisionId: row.revisionId,
      runId: null,
      actorId: null,
      requestId,
      requestHash: "h",
      origin: "user",
      kind: "updated",
      changedFieldIds: [],
      data,
      evidence: {},
      overrides: {},
      missingReasons: {},
      presence: row.presence,
      createdAt: at(20),
      before: row.data,
      beforeOverrides: row.overrides,
    },
  };
};

/** Stores a new owner granted `credits` and one dataset of theirs, through the ports. */
export const seedOwnerWithDataset = (credits: number) =>
  Effect.gen(function* () {
    const storage = yield* Storage;
    const owner = anOwner();
    yield* storage.createOwner(owner);
    if (credits > 0) yield* (yield* Credits).grant(owner.id, credits);
    const dataset = aDataset(owner.id);
    yield* storage.insertDataset(dataset);
    return { owner, dataset };
  });
