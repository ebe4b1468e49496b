import { conflicts, type RowPosition, type RowRecord, type RowStorage, type StoredRevision } from "@gleaner/core";
import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import type { MemoryState } from "./state.js";

/** Index of the first row strictly after `after` in newest-first order (binary search). */
const startAfter = (ordered: ReadonlyArray<RowRecord>, after: RowPosition | null): number => {
  if (!after) return 0;
  let low = 0;
  let high = ordered.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    const row = ordered[mid]!;
    const isAfter = row.updatedAt < after.updatedAt || (row.updatedAt === after.updatedAt && row.id < after.id);
    if (isAfter) high = mid;
    else low = mid + 1;
  }
  return low;
};

export const makeMemoryRows = (state: MemoryState): RowStorage => ({
  loadRows: (datasetId) => Effect.sync(() => [...state.rowsOf(datasetId).values()]),
  listRows: (datasetId, { after, since, statuses, limit }) =>
    Effect.sync(() => {
      const ordered = state.orderedRows(datasetId);
      const page: RowRecord[] = [];
      for (let i = startAfter(ordered, after); i < ordered.length && page.length < limit; i++) {
        const row = ordered[i]!;
        // Newest first: once a row is older than `since`, every later one is too.
        if (since !== null && row.updatedAt < since) break;
        if (statuses.length === 0 || statuses.includes(row.status)) page.push(row);
      }
      return page;
    }),
  getRow: (datasetId, rowId) => Effect.sync(() => Option.fromNullable(state.rowsOf(datasetId).get(rowId))),
  applyEdit: (row, expectedRevisionId, revision) =>
    Effect.suspend(() => {
      const rows = state.rowsOf(row.datasetId);
      const revisions = state.revisionsOf(row.datasetId);
      if (revision.requestId !== null && revisions.some((r) => r.requestId === revision.requestId)) {
        return Effect.fail(conflicts.duplicateRequest());
      }
      if (rows.get(row.id)?.revisionId !== expectedRevisionId) {
        return Effect.fail(conflicts.staleRevision());
      }
      const stored = { ...revision, sequence: revisions.length + 1 };
      revisions.push(stored);
      state.putRow(row);
      return Effect.succeed(stored);
    }),
  findRevisionByRequest: (datasetId, requestId) =>
    Effect.sync(() => Option.fromNullable(state.revisionsOf(datasetId).find((r) => r.requestId === requestId))),
  listRevisions: (datasetId, { after, through, limit, rowId, fieldId }) =>
    Effect.sync(() =>
      state
        .revisionsOf(datasetId)
        .slice(after, through)
        .filter((r) => rowId === null || r.rowId === rowId)
        .filter((r) => fieldId === null || r.changedFieldIds.includes(fieldId as never))
        .slice(0, limit),
    ),
  listRowsAsOf: (datasetId, { asOf, after, limit }) =>
    Effect.sync(() => {
      const rows = state.rowsOf(datasetId);
      const heads = new Map<string, StoredRevision>();
      // Sequences are the array positions + 1, so the first `asOf` revisions are the feed up to it.
      for (const revision of state.revisionsOf(datasetId).slice(0, asOf)) heads.set(revision.rowId, revision);
      return [...heads.values()]
        .filter((revision) => after === null || revision.rowId > after)
        .sort((a, b) => (a.rowId < b.rowId ? -1 : 1))
        .slice(0, limit)
        .map((revision) => ({ rowKey: rows.get(revision.rowId)?.rowKey ?? "", revision }));
    }),
  lastSequence: (datasetId) => Effect.sync(() => state.revisionsOf(datasetId).length),
  rowsPageState: (ownerId, datasetId) =>
    Effect.sync(() => {
      const dataset = state.datasets.get(datasetId);
      if (dataset?.ownerId !== ownerId) return Option.none();
      const run = state.newestRun(datasetId);
      return Option.some({
        revision: dataset.revision,
        lastSequence: state.revisionsOf(datasetId).length,
        newestRun: run ? { id: run.id, status: run.status } : null,
      });
    }),
  getObservations: (ids) =>
    Effect.sync(() => ids.flatMap((id) => (state.observations.has(id) ? [state.observations.get(id)!] : []))),
});
