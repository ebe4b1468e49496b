import {
  CreateDatasetRequest,
  createDataset,
  DatasetList,
  DatasetListQuery,
  DatasetResponse,
  DatasetSourceResponse,
  deleteDataset,
  getDataset,
  getDatasetSource,
  listDatasets,
  UpdateDatasetRequest,
  updateDataset,
} from "@gleaner/core";
import * as Effect from "effect/Effect";
import { type PathParam, type Route, route } from "./route.js";

export const datasetIdParam = {
  datasetId: { resource: "dataset", description: "The dataset's id (a UUID)." },
} satisfies Record<string, PathParam>;

/** Endpoints 1-4, and the dataset's source. */
export const datasetRoutes: ReadonlyArray<Route> = [
  route({
    method: "post",
    path: "/v1/datasets",
    operationId: "createDataset",
    tag: "Datasets",
    summary: "Create a dataset",
    description:
      "Creates a dataset in status `draft` together with its bot and recipe version 1, atomically. The source is " +
      "declarative (CSS selectors and reads only); its address must be public. Every problem in the body is " +
      "listed in `details`, each located by a JSON pointer.",
    auth: true,
    body: { schema: CreateDatasetRequest, required: true },
    success: { status: 201, description: "The new dataset, in status draft.", schema: DatasetResponse },
    errors: { 409: ["name_taken"], 429: ["rate_limited"] },
    handle: ({ owner, body }) => Effect.map(createDataset(owner.id, body), (dataset) => ({ dataset })),
  }),
  route({
    method: "get",
    path: "/v1/datasets",
    operationId: "listDatasets",
    tag: "Datasets",
    summary: "List datasets",
    description:
      "Your datasets, newest first. Pass the `nextCursor` of a page as `cursor` to read the next one; it is null " +
      "on the last page.",
    auth: true,
    query: DatasetListQuery,
    success: { status: 200, description: "A page of datasets, newest first.", schema: DatasetList },
    handle: ({ owner, query }) => listDatasets(owner.id, query),
  }),
  route({
    method: "get",
    path: "/v1/datasets/{datasetId}",
    operationId: "getDataset",
    tag: "Datasets",
    summary: "Read a dataset",
    description: "One of your datasets, with its columns, schedule state, row count and last run.",
    auth: true,
    pathParams: datasetIdParam,
    success: { status: 200, description: "The dataset.", schema: DatasetResponse },
    handle: ({ owner, params }) => Effect.map(getDataset(owner.id, params.datasetId), (dataset) => ({ dataset })),
  }),
  route({
    method: "get",
    path: "/v1/datasets/{datasetId}/source",
    operationId: "getDatasetSource",
    tag: "Datasets",
    summary: "Read a dataset's source",
    description:
      "The declarative source the dataset's next run reads (its address, item selector, reads, identity and " +
      "pagination) and its recipe version. Extension: not in SPEC.md, whose Dataset shape carries no source.",
    auth: true,
    pathParams: datasetIdParam,
    success: { status: 200, description: "The dataset's source.", schema: DatasetSourceResponse },
    handle: ({ owner, params }) => getDatasetSource(owner.id, params.datasetId),
  }),
  route({
    method: "patch",
    path: "/v1/datasets/{datasetId}",
    operationId: "updateDataset",
    tag: "Datasets",
    summary: "Update a dataset",
    description:
      "Renames the dataset, edits its question, column labels and descriptions, adds user-owned columns, changes " +
      "its status (`active` keeps it on its schedule, `paused` stops scheduled runs) or its schedule (five-field " +
      "cron, UTC). Column changes need `expectedSchemaVersion`; a stale one is 409 `schema_version_conflict`. " +
      "Sent as `application/json` or `application/merge-patch+json`.",
    auth: true,
    pathParams: datasetIdParam,
    body: { schema: UpdateDatasetRequest, required: true },
    success: { status: 200, description: "The updated dataset.", schema: DatasetResponse },
    errors: { 409: ["name_taken", "stale_dataset", "schema_version_conflict"] },
    handle: ({ owner, params, body }) =>
      Effect.map(updateDataset(owner.id, params.datasetId, body), (dataset) => ({ dataset })),
  }),
  route({
    method: "delete",
    path: "/v1/datasets/{datasetId}",
    operationId: "deleteDataset",
    tag: "Datasets",
    summary: "Delete a dataset",
    description:
      "Removes the dataset with its rows, change history, observations, runs and their evidence, its schedule, and " +
      "the webhooks scoped to it (with undelivered events about it). Credits already charged stay in the usage " +
      "ledger. A run in flight ends without writing. Extension: not in SPEC.md. Afterwards, and for another " +
      "owner's dataset, the dataset is 404, so repeating the request changes nothing.",
    auth: true,
    pathParams: datasetIdParam,
    success: { status: 204, description: "Deleted.", schema: null },
    handle: ({ owner, params }) => deleteDataset(owner.id, params.datasetId),
  }),
];
