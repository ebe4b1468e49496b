import type { DatasetPosition, RowPosition, RowStatus } from "@gleaner/core";
import type { Document } from "mongodb";
import { toDate, toUuid } from "./bson.js";

// Filters and sorts, built as plain documents so they can be checked without a server. Every
// listing is a keyset page over a compound index whose key order is the sort (see schema.ts):
// "strictly after (t, id)" in a descending listing is t < T, or t = T and _id < ID. BSON
// compares UUIDs (Binary, same length and subtype) byte by byte, which for canonical lowercase
// UUIDs is the order of their strings, the order the memory store uses.

const strictlyBefore = (field: string, at: Date, id: string): Document => ({
  $or: [{ [field]: { $lt: at } }, { [field]: at, _id: { $lt: toUuid(id) } }],
});

/** listDatasets: the owner's datasets, newest first, after a position. */
export const datasetsPage = (ownerId: string, after: DatasetPosition | null): Document => ({
  ownerId: toUuid(ownerId),
  ...(after ? strictlyBefore("createdAt", toDate(after.createdAt), after.id) : {}),
});

export const newestDatasetsFirst = { createdAt: -1, _id: -1 } as const;

/** listRuns, and a dataset's lastRun. */
export const newestRunsFirst = { queuedAt: -1, _id: -1 } as const;

/** listRows: statuses (any when empty), updated at or after `since`, strictly after a position. */
export const rowsPage = (
  datasetId: string,
  page: {
    readonly after: RowPosition | null;
    readonly since: string | null;
    readonly statuses: ReadonlyArray<RowStatus>;
  },
): Document => ({
  datasetId: toUuid(datasetId),
  ...(page.statuses.length > 0 ? { status: { $in: [...page.statuses] } } : {}),
  ...(page.since !== null ? { updatedAt: { $gte: toDate(page.since) } } : {}),
  ...(page.after ? strictlyBefore("updatedAt", toDate(page.after.updatedAt), page.after.id) : {}),
});

export const newestRowsFirst = { updatedAt: -1, _id: -1 } as const;

/** listRevisions: after < sequence <= through, optionally one row's, optionally touching one field. */
export const revisionsWindow = (
  datasetId: string,
  window: {
    readonly after: number;
    readonly through: number;
    readonly rowId: string | null;
    readonly fieldId: string | null;
  },
): Document => ({
  datasetId: toUuid(datasetId),
  sequence: { $gt: window.after, $lte: window.through },
  ...(window.rowId !== null ? { rowId: toUuid(window.rowId) } : {}),
  // Equality on an array field matches when any element equals the value.
  ...(window.fieldId !== null ? { changedFieldIds: window.fieldId } : {}),
});

/**
 * claimRun: a queued run, or also a running one when the job is a redelivery. One
 * findOneAndUpdate with this filter is atomic, so two workers cannot both claim a queued run.
 */
export const claimable = (runId: string, reclaimRunning: boolean): Document => ({
  _id: toUuid(runId),
  status: reclaimRunning ? { $in: ["queued", "running"] } : "queued",
});

export const activeRoutines: Document = { "scheduleState.status": "active" };

/** ledger: the owner's entries created at or after `since`, newest first by insertion. */
export const ledgerSince = (ownerId: string, since: string): Document => ({
  ownerId: toUuid(ownerId),
  createdAt: { $gte: toDate(since) },
});

export const newestLedgerFirst = { seq: -1 } as const;

/**
 * The driver treats limit(0) as "no limit" (and a negative limit as one batch); the port means
 * "at most n". Callers answer an empty page for these without asking the server.
 */
export const isEmptyLimit = (limit: number): boolean => !(limit > 0);
