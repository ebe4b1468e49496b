import { Conflict, type RowRecord, type StorageService } from "@gleaner/core";
import { Effect, Option } from "effect";
import type { MemoryState } from "./state.js";

type RowMethods = Pick<
  StorageService,
  | "loadRows"
  | "listRows"
  | "getRow"
  | "applyEdit"
  | "findRevisionByRequest"
  | "listRevisions"
  | "lastSequence"
  | "getObservations"
>;

const newestRowFirst = (a: RowRecord, b: RowRecord): number =>
  a.updatedAt === b.updatedAt ? (a.id < b.id ? 1 : a.id > b.id ? -1 : 0) : a.updatedAt < b.updatedAt ? 1 : -1;

export const makeMemoryRows = (state: MemoryState): RowMethods => ({
  loadRows: (datasetId) => Effect.sync(() => [...state.rowsOf(datasetId).values()]),
  listRows: (datasetId, { after, since, statuses, limit }) =>
    Effect.sync(() =>
      [...state.rowsOf(datasetId).values()]
        .filter((r) => statuses.length === 0 || statuses.includes(r.status))
        .filter((r) => since === null || r.updatedAt >= since)
        .filter((r) => !after || r.updatedAt < after.updatedAt || (r.updatedAt === after.updatedAt && r.id < after.id))
        .sort(newestRowFirst)
        .slice(0, limit),
    ),
  getRow: (datasetId, rowId) => Effect.sync(() => Option.fromNullable(state.rowsOf(datasetId).get(rowId))),
  applyEdit: (row, expectedRevisionId, revision) =>
    Effect.suspend(() => {
      const rows = state.rowsOf(row.datasetId);
      const revisions = state.revisionsOf(row.datasetId);
      if (revision.requestId !== null && revisions.some((r) => r.requestId === revision.requestId)) {
        return Effect.fail(new Conflict({ code: "duplicate_request", message: "This requestId was already used." }));
      }
      if (rows.get(row.id)?.revisionId !== expectedRevisionId) {
        return Effect.fail(
          new Conflict({ code: "stale_revision", message: "The row has a newer revision than expectedRevisionId." }),
        );
      }
      const stored = { ...revision, sequence: revisions.length + 1 };
      revisions.push(stored);
      rows.set(row.id, row);
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
  lastSequence: (datasetId) => Effect.sync(() => state.revisionsOf(datasetId).length),
  getObservations: (ids) =>
    Effect.sync(() => ids.flatMap((id) => (state.observations.has(id) ? [state.observations.get(id)!] : []))),
});
