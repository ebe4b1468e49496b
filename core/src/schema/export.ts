import * as Schema from "effect/Schema";
import { QueryInt } from "./query.js";
import { RowStatus } from "./row.js";

export const ExportFormat = Schema.Literal("csv", "jsonl", "parquet");
export type ExportFormat = typeof ExportFormat.Type;

/** The export query. `status` arrives as a string, or an array when repeated (as for row lists). */
export const ExportQuery = Schema.Struct({
  format: Schema.optionalWith(
    ExportFormat.annotations({ description: "csv (with a header), jsonl (one object a line) or parquet." }),
    { default: () => "csv" as const },
  ),
  asOf: Schema.optional(
    QueryInt(0).annotations({
      description: "A change-feed sequence: the rows exactly as a feed consumer had them after that sequence.",
    }),
  ),
  status: Schema.optional(Schema.Union(RowStatus, Schema.Array(RowStatus))),
});
export type ExportQuery = typeof ExportQuery.Type;

/** The content type each format is answered with. */
export const exportContentTypes: Readonly<Record<ExportFormat, string>> = {
  csv: "text/csv; charset=utf-8",
  jsonl: "application/jsonl; charset=utf-8",
  parquet: "application/vnd.apache.parquet",
};
