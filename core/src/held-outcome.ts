import * as Schema from "effect/Schema";
import { sha256HexSync } from "./digest.js";
import type { ExtractedRecord } from "./engine/extract.js";
import { DatasetColumn } from "./schema/column.js";
import { DatasetId, RunId } from "./schema/ids.js";
import { MissingReason, ResearchRowIdentity, Scalar, SourceObservation } from "./schema/row.js";

const HeldCell = Schema.Struct({
  value: Scalar,
  missingReason: Schema.NullOr(MissingReason),
  raw: Schema.NullOr(Schema.String),
});
const CellSource = Schema.Struct({ pageUrl: Schema.String, entryId: Schema.String });

/** An extracted record as a held outcome keeps it (maps as records, so it is plain JSON). */
const HeldRecord = Schema.Struct({
  pageUrl: Schema.String,
  index: Schema.NonNegativeInt,
  entryId: Schema.String,
  rowKey: Schema.NullOr(Schema.String),
  cells: Schema.Record({ key: Schema.String, value: HeldCell }),
  identity: Schema.optional(ResearchRowIdentity),
  cellSources: Schema.optional(Schema.Record({ key: Schema.String, value: CellSource })),
});
type HeldRecord = typeof HeldRecord.Type;

/**
 * What a held run would have written, kept so the owner can accept it later (POST /v1/runs/{id}/accept)
 * without reading the site again: its records and page observations, the columns and schema they were
 * read under, the pages it would be charged, and the digest of the rows it was compared with. A store
 * keeps one per dataset, the newest held run's (decision 0040), so it grows with datasets, not runs.
 */
export const HeldOutcome = Schema.Struct({
  runId: RunId,
  datasetId: DatasetId,
  reason: Schema.Literal("drift", "credits"),
  schemaVersion: Schema.NonNegativeInt,
  columns: Schema.Array(DatasetColumn),
  /** Distinct pages read and checked: the credits accepting it costs. */
  pages: Schema.NonNegativeInt,
  /** `rowsDigest` of the dataset's rows the run was compared with. */
  rowsDigest: Schema.String,
  records: Schema.Array(HeldRecord),
  observations: Schema.Array(SourceObservation),
});
export type HeldOutcome = typeof HeldOutcome.Type;

export const toHeldRecord = (record: ExtractedRecord): HeldRecord => ({
  pageUrl: record.pageUrl,
  index: record.index,
  entryId: record.entryId,
  rowKey: record.rowKey,
  cells: Object.fromEntries(
    [...record.cells].map(([id, cell]) => [
      id,
      { value: cell.value, missingReason: cell.missingReason, raw: cell.raw },
    ]),
  ),
  ...(record.identity ? { identity: record.identity } : {}),
  ...(record.cellSources ? { cellSources: Object.fromEntries(record.cellSources) } : {}),
});

export const fromHeldRecord = (record: HeldRecord): ExtractedRecord => ({
  pageUrl: record.pageUrl,
  index: record.index,
  entryId: record.entryId,
  rowKey: record.rowKey,
  cells: new Map(Object.entries(record.cells)),
  ...(record.identity ? { identity: record.identity } : {}),
  ...(record.cellSources ? { cellSources: new Map(Object.entries(record.cellSources)) } : {}),
});

/**
 * A digest of the rows a run was compared with: every row's id, head revision and last run. An edit
 * moves a head, and a later accepted run moves a head or a last run, so a held outcome whose digest
 * no longer matches would not be what the run saw.
 */
export const rowsDigest = (
  rows: ReadonlyArray<{
    readonly id: string;
    readonly revisionId: string | null;
    readonly lastSeenRunId: string | null;
  }>,
): string =>
  sha256HexSync(
    rows
      .map((row) => `${row.id} ${row.revisionId ?? "-"} ${row.lastSeenRunId}`)
      .sort()
      .join("\n"),
  );
