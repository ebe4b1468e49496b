import {
  ChangePage,
  CreateDatasetRequest,
  EditRowRequest,
  RowDetail,
  RowRevision,
  DatasetRow,
  DatasetList,
  DatasetResponse,
  errorCodes,
  UpdateDatasetRequest,
  Usage,
} from "@gleaner/core";
import { JSONSchema, type Schema } from "effect";

/**
 * OpenAPI 3.1 generated from the same Effect Schemas that validate requests, so the document
 * cannot drift from the behaviour. JSON Schema `$defs` become `components.schemas`.
 */
type Json = Record<string, unknown>;

const components: Record<string, Json> = {};

const ref = (schema: Schema.Schema<any, any>, name: string): Json => {
  const generated = JSONSchema.make(schema, { target: "openApi3.1" }) as unknown as Json;
  const defs = (generated.$defs ?? {}) as Record<string, Json>;
  const rewrite = (value: unknown): unknown =>
    JSON.parse(JSON.stringify(value).replaceAll('"#/$defs/', '"#/components/schemas/'));
  for (const [key, def] of Object.entries(defs)) components[key] = rewrite(def) as Json;
  const { $schema: _s, $defs: _d, ...rest } = generated;
  if (typeof rest.$ref === "string") return rewrite(rest) as Json;
  components[name] = rewrite(rest) as Json;
  return { $ref: `#/components/schemas/${name}` };
};

const errorBody: Json = {
  type: "object",
  required: ["error"],
  additionalProperties: false,
  properties: {
    error: {
      type: "object",
      required: ["code", "message"],
      additionalProperties: false,
      properties: {
        code: { type: "string", enum: [...errorCodes] },
        message: { type: "string" },
        details: {
          type: "array",
          items: {
            type: "object",
            required: ["path", "message"],
            additionalProperties: false,
            properties: { path: { type: "string" }, message: { type: "string" } },
          },
        },
      },
    },
  },
};

const creditsHeader = {
  "X-Credits-Remaining": {
    description: "The owner's credit balance at the time of the answer; 0 when unauthenticated.",
    schema: { type: "integer" },
  },
};

const errors = (...statuses: number[]): Json =>
  Object.fromEntries(
    statuses.map((s) => [
      String(s),
      {
        description: `Error (${s})`,
        headers: creditsHeader,
        content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
      },
    ]),
  );

const ok = (status: number, schema: Json, description: string): Json => ({
  [String(status)]: { description, headers: creditsHeader, content: { "application/json": { schema } } },
});

const body = (schema: Json): Json => ({ required: true, content: { "application/json": { schema } } });
const datasetIdParam = { name: "datasetId", in: "path", required: true, schema: { type: "string", format: "uuid" } };

export const buildOpenApi = (): Json => {
  const dataset = ref(DatasetResponse, "DatasetResponse");
  const document: Json = {
    openapi: "3.1.0",
    info: {
      title: "Gleaner",
      version: "1.0.0",
      description: "Declarative web datasets, accepted whole or not at all.",
    },
    servers: [{ url: "/" }],
    security: [{ bearer: [] }],
    paths: {
      "/v1/datasets": {
        post: {
          operationId: "createDataset",
          requestBody: body(ref(CreateDatasetRequest, "CreateDatasetRequest")),
          responses: {
            ...ok(201, dataset, "The dataset, in status draft."),
            ...errors(400, 401, 409, 413, 415, 422, 500),
          },
        },
        get: {
          operationId: "listDatasets",
          parameters: [
            { name: "cursor", in: "query", schema: { type: "string" } },
            { name: "limit", in: "query", schema: { type: "integer", minimum: 1, maximum: 100, default: 20 } },
          ],
          responses: {
            ...ok(200, ref(DatasetList, "DatasetList"), "Datasets, newest first."),
            ...errors(400, 401, 500),
          },
        },
      },
      "/v1/datasets/{datasetId}": {
        parameters: [datasetIdParam],
        get: {
          operationId: "getDataset",
          responses: { ...ok(200, dataset, "The dataset."), ...errors(401, 404, 500) },
        },
        patch: {
          operationId: "updateDataset",
          requestBody: body(ref(UpdateDatasetRequest, "UpdateDatasetRequest")),
          responses: { ...ok(200, dataset, "The updated dataset."), ...errors(400, 401, 404, 409, 413, 415, 422, 500) },
        },
      },
      "/v1/datasets/{datasetId}/rows": {
        parameters: [datasetIdParam],
        get: {
          operationId: "listRows",
          parameters: [
            { name: "since", in: "query", schema: { type: "string", format: "date-time" } },
            {
              name: "status",
              in: "query",
              description: "Repeatable; each value at most once.",
              schema: { type: "array", uniqueItems: true, items: { enum: ["new", "changed", "unchanged", "gone"] } },
              style: "form",
              explode: true,
            },
            { name: "cursor", in: "query", schema: { type: "string" } },
            { name: "limit", in: "query", schema: { type: "integer", minimum: 1, maximum: 500, default: 100 } },
          ],
          responses: {
            ...ok(
              200,
              {
                type: "object",
                required: ["data", "nextCursor"],
                additionalProperties: false,
                properties: {
                  data: { type: "array", items: ref(DatasetRow, "DatasetRow") },
                  nextCursor: { type: ["string", "null"] },
                },
              },
              "Current rows, updatedAt desc then id desc.",
            ),
            ...errors(400, 401, 404, 500),
          },
        },
      },
      "/v1/datasets/{datasetId}/rows/{rowId}": {
        parameters: [
          datasetIdParam,
          { name: "rowId", in: "path", required: true, schema: { type: "string", format: "uuid" } },
        ],
        get: {
          operationId: "getRow",
          responses: {
            ...ok(200, ref(RowDetail, "RowDetail"), "The row with its evidence."),
            ...errors(401, 404, 500),
          },
        },
        patch: {
          operationId: "editRow",
          description:
            "409 codes: stale_revision (expectedRevisionId is not the current revision), request_id_reused (the requestId was used for a different edit). A retry with the same requestId and payload answers 200 with the original revision.",
          requestBody: body(ref(EditRowRequest, "EditRowRequest")),
          responses: {
            ...ok(200, ref(RowRevision, "RowRevision"), "The revision the edit wrote (or, for a retry, wrote before)."),
            ...errors(400, 401, 404, 409, 413, 415, 422, 500),
          },
        },
      },
      "/v1/datasets/{datasetId}/changes": {
        parameters: [datasetIdParam],
        get: {
          operationId: "listChanges",
          description:
            "400 for malformed parameters and fieldId without rowId; 422 for a window this feed cannot have (after > through, after or through beyond the last sequence, an unknown fieldId).",
          parameters: [
            { name: "after", in: "query", schema: { type: "integer", minimum: 0 } },
            { name: "through", in: "query", schema: { type: "integer", minimum: 0 } },
            { name: "limit", in: "query", schema: { type: "integer", minimum: 1, maximum: 100, default: 50 } },
            { name: "rowId", in: "query", schema: { type: "string", format: "uuid" } },
            { name: "fieldId", in: "query", schema: { type: "string", format: "uuid" } },
          ],
          responses: {
            ...ok(200, ref(ChangePage, "ChangePage"), "Revisions in ascending sequence within the window."),
            ...errors(400, 401, 404, 422, 500),
          },
        },
      },
      "/v1/usage": {
        get: {
          operationId: "getUsage",
          responses: { ...ok(200, ref(Usage, "Usage"), "Balance and ledger."), ...errors(401, 500) },
        },
      },
    },
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer", description: "An API key: gl_…" } },
      schemas: { Error: errorBody },
    },
  };
  (document.components as { schemas: Json }).schemas = { ...components, Error: errorBody };
  return document;
};
