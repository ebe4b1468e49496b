import {
  ChangePage,
  ChangeQuery,
  EditRowRequest,
  editRow,
  getRow,
  listChanges,
  listRows,
  RowDetail,
  RowList,
  RowListQuery,
  RowRevision,
  rowsPageTag,
} from "@gleaner/core";
import { datasetIdParam } from "./datasets.js";
import { type Route, route } from "./route.js";

const rowParams = {
  ...datasetIdParam,
  rowId: { resource: "row", description: "The row's id (a UUID)." },
};

/** Endpoints 5-8: rows, one row, a row edit, the change feed. */
export const rowRoutes: ReadonlyArray<Route> = [
  route({
    method: "get",
    path: "/v1/datasets/{datasetId}/rows",
    operationId: "listRows",
    tag: "Rows",
    summary: "List rows",
    description:
      "The dataset's current rows, most recently updated first (then by id). `since` keeps rows updated at or " +
      "after that instant; repeat `status` to include several statuses. Values are keyed by Field id, never by label. " +
      "Each page carries a weak `ETag`; send it back as `If-None-Match` and an unchanged page is answered 304 with " +
      "no body (the tag changes with every accepted run, edit and dataset update).",
    auth: true,
    pathParams: datasetIdParam,
    query: RowListQuery,
    success: { status: 200, description: "A page of rows.", schema: RowList },
    handle: ({ owner, params, query }) => listRows(owner.id, params.datasetId, query),
    etag: ({ owner, params, querystring }) => rowsPageTag(owner.id, params.datasetId, querystring),
  }),
  route({
    method: "get",
    path: "/v1/datasets/{datasetId}/rows/{rowId}",
    operationId: "getRow",
    tag: "Rows",
    summary: "Read a row with its evidence",
    description:
      "One row with per-cell evidence (which observation and entry each value came from), its manual overrides " +
      "and the observations themselves, each with the excerpt read from the page.",
    auth: true,
    pathParams: rowParams,
    success: { status: 200, description: "The row with its evidence.", schema: RowDetail },
    handle: ({ owner, params }) => getRow(owner.id, params.datasetId, params.rowId),
  }),
  route({
    method: "patch",
    path: "/v1/datasets/{datasetId}/rows/{rowId}",
    operationId: "editRow",
    tag: "Rows",
    summary: "Override or reset cells",
    description:
      "Sets manual values (overrides that later runs keep) or resets overridden cells to the latest collected " +
      "value. Send the row's current `revisionId` as `expectedRevisionId`; a newer one is 409 `stale_revision`. A " +
      "retry with the same `requestId` and payload answers the original revision; the same `requestId` with another " +
      "payload is 409 `request_id_reused`.",
    auth: true,
    pathParams: rowParams,
    body: { schema: EditRowRequest, required: true },
    success: {
      status: 200,
      description: "The revision the edit wrote (or, for a retry, wrote before).",
      schema: RowRevision,
    },
    errors: { 409: ["stale_revision", "request_id_reused", "duplicate_request"] },
    handle: ({ owner, params, body }) => editRow(owner.id, params.datasetId, params.rowId, body),
  }),
  route({
    method: "get",
    path: "/v1/datasets/{datasetId}/changes",
    operationId: "listChanges",
    tag: "Rows",
    summary: "Read the change feed",
    description:
      "Row revisions in ascending sequence, each with its before values. A first page without `after`/`through` " +
      "fixes a window whose upper bound comes back as `through`; read the rest of the window with that `through` " +
      "and `after` = `nextAfter`; when it is drained, poll again with the previous `through` as `after`. `rowId` " +
      "selects a row's timeline, `rowId` with `fieldId` a cell's; `changedFieldId` (an extension) the revisions " +
      "that changed one field across every row. 400 for malformed parameters, `fieldId` without `rowId` or with " +
      "`changedFieldId`; 422 for a window the feed cannot have (after > through, beyond the last sequence, an unknown field).",
    auth: true,
    pathParams: datasetIdParam,
    query: ChangeQuery,
    success: { status: 200, description: "Revisions within the window.", schema: ChangePage },
    errors: { 422: ["validation_error"] },
    handle: ({ owner, params, query }) => listChanges(owner.id, params.datasetId, query),
  }),
];
