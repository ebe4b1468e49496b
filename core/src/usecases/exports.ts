import * as Chunk from "effect/Chunk";
import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import * as Stream from "effect/Stream";
import type { StorageFailure } from "../errors.js";
import { ValidationError } from "../errors.js";
import { Storage } from "../ports/storage.js";
import { type ExportColumn, type ExportRow, exportColumns, rowAsOfRevision } from "../rules/export-shape.js";
import type { RowPosition } from "../run-domain.js";
import type { ExportFormat, ExportQuery } from "../schema/export.js";
import type { DatasetId, OwnerId, RowId } from "../schema/ids.js";
import type { RowStatus } from "../schema/row.js";
import { findDataset } from "./find-dataset.js";
import { statusesOf } from "./rows.js";

/** Rows are read from storage this many at a time, so an export holds one page, never the dataset. */
export const exportPageSize = 1000;

/** An export ready to be written: its shape, and its rows as a stream read page by page. */
export interface RowExport {
  readonly datasetId: DatasetId;
  readonly format: ExportFormat;
  /** The sequence the rows are as of; null for the current rows. */
  readonly asOf: number | null;
  readonly columns: ReadonlyArray<ExportColumn>;
  readonly rows: Stream.Stream<ExportRow, StorageFailure>;
}

const currentRows = (datasetId: DatasetId, statuses: ReadonlyArray<RowStatus>) =>
  Stream.paginateChunkEffect(null as RowPosition | null, (after) =>
    Effect.map(
      Effect.flatMap(Storage, (s) => s.listRows(datasetId, { after, since: null, statuses, limit: exportPageSize })),
      (page) => {
        const last = page[page.length - 1];
        const next =
          page.length === exportPageSize && last
            ? Option.some({ updatedAt: last.updatedAt, id: last.id })
            : Option.none();
        const rows = page.map(
          (r): ExportRow => ({
            rowKey: r.rowKey,
            status: r.status,
            presence: r.presence,
            updatedAt: r.updatedAt,
            values: r.data,
          }),
        );
        return [Chunk.fromIterable(rows), next] as const;
      },
    ),
  );

const rowsAsOf = (datasetId: DatasetId, asOf: number, statuses: ReadonlyArray<RowStatus>) =>
  Stream.paginateChunkEffect(null as RowId | null, (after) =>
    Effect.map(
      Effect.flatMap(Storage, (s) => s.listRowsAsOf(datasetId, { asOf, after, limit: exportPageSize })),
      (page) => {
        const last = page[page.length - 1];
        const next = page.length === exportPageSize && last ? Option.some(last.revision.rowId) : Option.none();
        const rows = page
          .map(({ rowKey, revision }) => rowAsOfRevision(revision, rowKey))
          .filter((row) => statuses.length === 0 || statuses.includes(row.status));
        return [Chunk.fromIterable(rows), next] as const;
      },
    ),
  );

/**
 * The dataset's rows for export: the current rows (most recently updated first), or, with `asOf`,
 * the rows exactly as a change-feed consumer had them after that sequence, rebuilt from each row's
 * last revision at or below it (ascending by row id). Columns are the dataset's current ones.
 * An `asOf` beyond the feed's last sequence is 422: that state has not happened yet.
 */
export const exportRows = Effect.fn("exportRows")(function* (ownerId: OwnerId, datasetId: string, params: ExportQuery) {
  const statuses = yield* statusesOf(params.status);
  const dataset = yield* findDataset(ownerId, datasetId);
  const id = dataset.record.id as DatasetId;
  const storage = yield* Storage;
  if (params.asOf !== undefined) {
    const last = yield* storage.lastSequence(id);
    if (params.asOf > last) {
      return yield* Effect.fail(
        new ValidationError({
          message: `The export is inconsistent: asOf is beyond the last sequence of this dataset (${last}).`,
          details: [{ path: "asOf", message: `is beyond the last sequence of this dataset (${last})` }],
        }),
      );
    }
  }
  const rows = params.asOf === undefined ? currentRows(id, statuses) : rowsAsOf(id, params.asOf, statuses);
  const result: RowExport = {
    datasetId: id,
    format: params.format,
    asOf: params.asOf ?? null,
    columns: exportColumns(dataset.record.columns),
    rows: Stream.provideService(rows, Storage, storage),
  };
  return result;
});
