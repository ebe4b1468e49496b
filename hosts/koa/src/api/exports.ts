import { ExportQuery, exportContentTypes, exportRows } from "@gleaner/core";
import * as Effect from "effect/Effect";
import { writeExport } from "../export/writers.js";
import { datasetIdParam } from "./datasets.js";
import { type RawAnswer, type Route, route } from "./route.js";

/** Data out: the dataset's rows as a file, now or as of a change-feed sequence. */
export const exportRoutes: ReadonlyArray<Route> = [
  route({
    method: "get",
    path: "/v1/datasets/{datasetId}/export",
    operationId: "exportRows",
    tag: "Rows",
    summary: "Export rows as CSV, JSONL or Parquet",
    description:
      "The dataset's current rows, or with `asOf` the rows exactly as a change-feed consumer had them after that " +
      "sequence (each row as its last revision at or below `asOf` left it). Columns are named by extraction name, " +
      "after `_rowKey`, `_status`, `_presence` and `_updatedAt`; values keep their type in JSONL and Parquet. The " +
      "answer is streamed. In CSV, text starting with `=`, `+`, `-`, `@`, tab or carriage return is prefixed " +
      "with `'` so spreadsheets do not run it as a formula. 422 for an `asOf` beyond the feed's last sequence.",
    auth: true,
    pathParams: datasetIdParam,
    query: ExportQuery,
    success: {
      status: 200,
      description: "The rows in the requested format.",
      schema: null,
      contentTypes: Object.values(exportContentTypes).map((type) => type.split(";")[0]!),
    },
    errors: { 422: ["validation_error"] },
    handle: ({ owner, params, query }) =>
      Effect.map(
        exportRows(owner.id, params.datasetId, query),
        (rowExport): RawAnswer => ({
          raw: true,
          contentType: exportContentTypes[rowExport.format],
          body: writeExport(rowExport),
          headers: {
            "Content-Disposition": `attachment; filename="${rowExport.datasetId}${
              rowExport.asOf === null ? "" : `-as-of-${rowExport.asOf}`
            }.${rowExport.format}"`,
          },
        }),
      ),
  }),
];
