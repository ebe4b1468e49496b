import type { ColumnType, DatasetColumn } from "../schema/column.js";
import type { Presence, RowData, RowRevision, RowStatus, Scalar } from "../schema/row.js";

/**
 * The columns every export starts with. Extraction names start with a letter, so these
 * underscore-led names can never collide with a dataset column.
 */
export const exportMetaColumns = ["_rowKey", "_status", "_presence", "_updatedAt"] as const;

/** A dataset column as an export names and types it. */
export interface ExportColumn {
  readonly id: string;
  readonly name: string;
  readonly type: ColumnType;
}

/** One exported row: its identity and state, and its values keyed by Field id. */
export interface ExportRow {
  readonly rowKey: string;
  readonly status: RowStatus;
  readonly presence: Presence;
  readonly updatedAt: string;
  readonly values: RowData;
}

export const exportColumns = (columns: ReadonlyArray<DatasetColumn>): ReadonlyArray<ExportColumn> =>
  columns.map(({ id, name, type }) => ({ id, name, type }));

/** The header of a tabular export: the meta columns, then the dataset's columns by name. */
export const exportHeader = (columns: ReadonlyArray<ExportColumn>): ReadonlyArray<string> => [
  ...exportMetaColumns,
  ...columns.map((c) => c.name),
];

/**
 * A row as a record keyed by column name, in header order. Values keep their type (a number stays
 * a number); a cell the row has no value for is null.
 */
export const exportRecord = (columns: ReadonlyArray<ExportColumn>, row: ExportRow): Record<string, Scalar> => {
  const record: Record<string, Scalar> = {
    _rowKey: row.rowKey,
    _status: row.status,
    _presence: row.presence,
    _updatedAt: row.updatedAt,
  };
  for (const column of columns) record[column.name] = row.values[column.id] ?? null;
  return record;
};

/**
 * The status a revision leaves its row in, as the run that wrote it set it. Revisions are the only
 * history kept, so a point-in-time export reports this; a later run that saw the row unchanged
 * writes no revision and is not reflected.
 */
const statusAfter: Readonly<Record<RowRevision["kind"], RowStatus>> = {
  created: "new",
  updated: "changed",
  returned: "changed",
  missing: "gone",
  baseline: "unchanged",
};

/** A row as a revision left it: what a change-feed consumer holds after that revision. */
export const rowAsOfRevision = (
  revision: Pick<RowRevision, "kind" | "data" | "presence" | "createdAt">,
  rowKey: string,
): ExportRow => ({
  rowKey,
  status: statusAfter[revision.kind],
  presence: revision.presence,
  updatedAt: revision.createdAt,
  values: revision.data,
});
