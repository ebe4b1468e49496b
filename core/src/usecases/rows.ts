import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import { BadRequest, NotFound } from "../errors.js";
import { Storage } from "../ports/storage.js";
import { citedObservations } from "../rules/cited-observations.js";
import { CursorSecret, decodeCursor, encodeCursor } from "../rules/cursor.js";
import type { RowRecord } from "../run-domain.js";
import type { DatasetId, OwnerId, RowId } from "../schema/ids.js";
import type { RowListQuery } from "../schema/requests-rows.js";
import type { DatasetRow, RowDetail, RowStatus } from "../schema/row.js";
import { findDataset } from "./find-dataset.js";

/** The list view of a stored row. Deterministic rows have no entity identity (null). */
export const toDatasetRow = (r: RowRecord): DatasetRow => ({
  id: r.id,
  rowKey: r.rowKey,
  identity: r.identity ?? null,
  data: r.data,
  revisionId: r.revisionId,
  presence: r.presence,
  missingReasons: r.missingReasons,
  status: r.status,
  firstSeenRunId: r.firstSeenRunId,
  lastSeenRunId: r.lastSeenRunId,
  sourceUrl: r.sourceUrl,
  observedAt: r.observedAt,
  updatedAt: r.updatedAt,
});

/** A row of an owner's dataset, or NotFound (another owner's dataset is simply not found). */
export const findRow = (ownerId: OwnerId, datasetId: string, rowId: string) =>
  Effect.gen(function* () {
    const dataset = yield* findDataset(ownerId, datasetId);
    const row = yield* (yield* Storage).getRow(dataset.record.id, rowId as RowId);
    if (Option.isNone(row)) return yield* Effect.fail(new NotFound({ resource: "row", id: rowId }));
    return { dataset: dataset.record, row: row.value };
  });

/** The repeated `status` query parameter as a list; a repeated value is 400. */
export const statusesOf = (status: RowListQuery["status"]) =>
  Effect.suspend(() => {
    const statuses: ReadonlyArray<RowStatus> =
      status === undefined ? [] : typeof status === "string" ? [status] : status;
    if (new Set(statuses).size !== statuses.length) {
      return Effect.fail(
        new BadRequest({
          message: 'Query parameter "status" repeats a value; list each status once.',
          details: [{ path: "status", message: "must not repeat a value" }],
        }),
      );
    }
    return Effect.succeed(statuses);
  });

/**
 * Endpoint 5: current rows, updatedAt desc then id desc, keyset-paginated. The cursor holds the
 * last row's position and is scoped to the dataset; filters may change between pages without
 * breaking the order, because the position alone decides where the next page starts.
 */
export const listRows = (ownerId: OwnerId, datasetId: string, { since, status, cursor, limit }: RowListQuery) =>
  Effect.gen(function* () {
    const statuses = yield* statusesOf(status);
    const dataset = yield* findDataset(ownerId, datasetId);
    const id = dataset.record.id as DatasetId;
    const secret = yield* CursorSecret;
    const after = cursor
      ? yield* Effect.flatMap(decodeCursor("rows", id, cursor, secret), (position) => {
          const [updatedAt, rowId] = position;
          return typeof updatedAt === "string" && typeof rowId === "string" && position.length === 2
            ? Effect.succeed({ updatedAt, id: rowId as RowId })
            : Effect.fail(
                new BadRequest({
                  message: 'Query parameter "cursor" is not a cursor this list returned.',
                  details: [{ path: "cursor", message: "is invalid or belongs to another list" }],
                }),
              );
        })
      : null;
    // Stored times are UTC ISO strings compared as text, so `since` is normalised to that form.
    const sinceIso = since === undefined ? null : new Date(since).toISOString();
    const page = yield* (yield* Storage).listRows(id, { after, since: sinceIso, statuses, limit: limit + 1 });
    const data = page.slice(0, limit);
    const last = data[data.length - 1];
    const nextCursor = page.length > limit && last ? encodeCursor("rows", id, [last.updatedAt, last.id], secret) : null;
    return { data: data.map(toDatasetRow), nextCursor };
  });

/** Endpoint 6: one row with its evidence, overrides and the observations that evidence cites. */
export const getRow = (ownerId: OwnerId, datasetId: string, rowId: string) =>
  Effect.gen(function* () {
    const { row } = yield* findRow(ownerId, datasetId, rowId);
    const observations = yield* (yield* Storage).getObservations(citedObservations([row]));
    const detail: RowDetail = {
      ...toDatasetRow(row),
      datasetId: row.datasetId,
      evidence: row.evidence,
      overrides: row.overrides,
      observations,
    };
    return detail;
  });
