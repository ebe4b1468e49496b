import { errorCodes } from "@gleaner/core";
import * as JSONSchema from "effect/JSONSchema";
import * as Schema from "effect/Schema";
import { errorStatuses, type Route } from "./route.js";

/**
 * OpenAPI 3.1 built from the route table and core's Effect Schemas: the router and this document
 * read the same entries, so a route cannot exist without being documented. JSON Schema `$defs`
 * become `components.schemas`.
 */
type Json = Record<string, unknown>;

/**
 * Effect writes a refinement's default message ("a string at most 120 character(s) long") and
 * its name ("maxLength(120)") into every schema; the limits are already in minLength/maxLength,
 * so those texts are dropped and only descriptions written in words remain.
 */
const generated =
  /^(an? (string|number|integer|array|object|non-negative|positive|negative|finite|valid|Universally|date|non-empty|record|boolean)\b)/;
const clean = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(clean);
  if (typeof value !== "object" || value === null) return value;
  const out: Json = {};
  const record = value as Json;
  // Effect wraps a refined reference as `allOf: [{ $ref, minimum, … }]`; OpenAPI 3.1 allows the siblings directly.
  if (Array.isArray(record.allOf) && record.allOf.length === 1) {
    const { allOf, ...others } = record;
    return clean({ ...(allOf as Json[])[0], ...others });
  }
  for (const [key, child] of Object.entries(value)) {
    if (key === "title" && typeof child === "string") continue;
    // Effect marks `Schema.Unknown` and `Schema.Object` with ids like "/schemas/unknown"; they name nothing.
    if (key === "$id" && typeof child === "string" && child.startsWith("/schemas/")) continue;
    if (key === "description" && typeof child === "string" && generated.test(child)) continue;
    out[key] = key === "properties" || key === "$defs" ? cleanMap(child as Json) : clean(child);
  }
  return out;
};
const cleanMap = (map: Json): Json => Object.fromEntries(Object.entries(map).map(([k, v]) => [k, clean(v)]));

const toComponents = (text: string): unknown => JSON.parse(text.replaceAll('"#/$defs/', '"#/components/schemas/'));

const errorBody: Json = {
  type: "object",
  description: "The body of every 4xx and 5xx answer.",
  required: ["error"],
  additionalProperties: false,
  properties: {
    error: {
      type: "object",
      required: ["code", "message"],
      additionalProperties: false,
      properties: {
        code: { type: "string", enum: [...errorCodes], description: "Machine-readable; stable across versions." },
        message: { type: "string", description: "A sentence for people; may change." },
        details: {
          type: "array",
          description: "Each problem with the request, located by a JSON pointer (body) or a parameter name (query).",
          items: {
            type: "object",
            required: ["path", "message"],
            additionalProperties: false,
            properties: { path: { type: "string" }, message: { type: "string" } },
          },
        },
        truncatedDetails: {
          type: "integer",
          description: "How many further problems were found but not listed (details are capped).",
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

const etagHeader = {
  ETag: { description: "A weak entity tag of this answer; send it back as If-None-Match.", schema: { type: "string" } },
};
const ifNoneMatch = {
  name: "If-None-Match",
  in: "header",
  required: false,
  description: "An ETag of an earlier answer: if it still holds, the answer is 304 with no body.",
  schema: { type: "string" },
};

const retryAfterHeader = {
  "Retry-After": { description: "Seconds to wait before trying again.", schema: { type: "integer" } },
};

/** Builds the document for a route table. */
export const buildOpenApi = (routes: ReadonlyArray<Route>): Json => {
  const components: Record<string, unknown> = {};
  /** Moves a generated schema's `$defs` into the components; returns the root with references rewritten. */
  const register = (made: Json): Json => {
    const { $schema: _s, $defs, ...root } = made;
    for (const [name, def] of Object.entries(($defs ?? {}) as Json))
      components[name] = toComponents(JSON.stringify(def));
    return toComponents(JSON.stringify(root)) as Json;
  };
  const schemaRef = (schema: Schema.Schema.AnyNoContext, fallbackName: string): unknown => {
    const root = register(clean(JSONSchema.make(schema, { target: "openApi3.1" })) as Json);
    if (typeof root.$ref === "string") return root;
    components[fallbackName] = root;
    return { $ref: `#/components/schemas/${fallbackName}` };
  };

  const paths: Record<string, Json> = {};
  for (const route of routes) {
    const operation: Json = {
      operationId: route.operationId,
      tags: [route.tag],
      summary: route.summary,
      description: route.description,
      ...(route.auth ? {} : { security: [] }),
      parameters: [...pathParameters(route), ...queryParameters(route, register), ...(route.etag ? [ifNoneMatch] : [])],
    };
    if (route.body) {
      operation.requestBody = {
        required: route.body.required,
        content: { "application/json": { schema: schemaRef(route.body.schema, `${capital(route.operationId)}Body`) } },
      };
    }
    const headers = route.auth ? creditsHeader : undefined;
    const success = route.success;
    const successHeaders = route.etag ? { ...headers, ...etagHeader } : headers;
    const responses: Json = {
      [String(success.status)]: {
        description: success.description,
        ...(successHeaders ? { headers: successHeaders } : {}),
        // 204 No Content has no body to describe.
        ...(success.status === 204
          ? {}
          : {
              content: success.schema
                ? { "application/json": { schema: schemaRef(success.schema, `${capital(route.operationId)}Response`) } }
                : Object.fromEntries(
                    (success.contentTypes ?? []).map((type) => [type, { schema: { type: "string" } }]),
                  ),
            }),
      },
    };
    if (route.etag) {
      responses["304"] = { description: "Not Modified: the If-None-Match tag still holds.", headers: etagHeader };
    }
    for (const [status, codes] of errorStatuses(route)) {
      const retry = status === 429 || status === 503 ? retryAfterHeader : {};
      responses[String(status)] = {
        description: `${statusNames[status] ?? "Error"}: ${codes.map((c) => `\`${c}\``).join(", ")}.`,
        ...(headers || status === 503 ? { headers: { ...headers, ...retry } } : {}),
        content: {
          "application/json": {
            schema: {
              allOf: [
                { $ref: "#/components/schemas/Error" },
                { type: "object", properties: { error: { type: "object", properties: { code: { enum: codes } } } } },
              ],
            },
          },
        },
      };
    }
    operation.responses = responses;
    paths[route.path] = { ...(paths[route.path] ?? {}), [route.method]: operation };
  }

  return {
    openapi: "3.1.0",
    info: {
      title: "Gleaner",
      version: "1.0.0",
      description:
        "Declarative web datasets, accepted whole or not at all. Every `/v1` operation needs `Authorization: Bearer " +
        "gl_…` and answers with `X-Credits-Remaining`; another owner's resources are 404.",
      license: { name: "MIT", identifier: "MIT" },
    },
    servers: [{ url: "/", description: "The server that serves this document." }],
    security: [{ bearer: [] }],
    tags: tags.map(([name, description]) => ({ name, description })),
    paths,
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer", description: "An API key: `gl_…`." } },
      schemas: { ...components, Error: errorBody },
    },
  };
};

const tags: ReadonlyArray<[string, string]> = [
  ["Datasets", "Typed tables filled by a declarative web source."],
  ["Sources", "Preview a source, or have sources suggested from a page, before creating a dataset."],
  ["Rows", "The checked rows, their evidence, manual overrides and the change feed."],
  ["Runs", "Runs of a dataset's source: status, checks, artifacts, diagnostics and trace."],
  ["Usage", "Credits: the balance and the ledger."],
  ["Operations", "Liveness, readiness and this document; no key needed."],
];

const statusNames: Record<number, string> = {
  400: "Bad request",
  401: "Unauthorized",
  402: "Insufficient credits",
  404: "Not found",
  409: "Conflict",
  413: "Payload too large",
  415: "Unsupported media type",
  422: "Validation error",
  429: "Too many requests",
  500: "Internal error",
  503: "Unavailable",
};

const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

const pathParameters = (route: Route): Json[] =>
  Object.entries(route.pathParams ?? {}).map(([name, param]) => ({
    name,
    in: "path",
    required: true,
    description: param.description,
    schema: { type: "string", format: "uuid" },
  }));

/**
 * Query parameters from the route's query Struct: each field's decoded type (integers, enums) with
 * the default the use case applies; a field that is a value-or-array is a repeatable parameter.
 */
const queryParameters = (route: Route, register: (made: Json) => Json): Json[] => {
  if (!route.query) return [];
  const typed = register(clean(JSONSchema.make(Schema.typeSchema(route.query), { target: "openApi3.1" })) as Json) as {
    properties: Record<string, Json>;
  };
  const encoded = JSONSchema.make(Schema.encodedSchema(route.query)) as { required?: string[] };
  const defaults = Schema.decodeUnknownSync(route.query as Schema.Schema<Json, Json>)({}) as Json;
  return Object.entries(typed.properties).map(([name, schema]) => {
    const { description, ...rest } = schema as Json & { description?: string };
    const anyOf = rest.anyOf as Json[] | undefined;
    const repeatable = anyOf?.find((s) => s.type === "array");
    const valueSchema = repeatable ? { type: "array", uniqueItems: true, items: repeatable.items } : rest;
    return {
      name,
      in: "query",
      required: (encoded.required ?? []).includes(name),
      ...(description ? { description } : {}),
      schema: { ...valueSchema, ...(defaults[name] !== undefined ? { default: defaults[name] } : {}) },
      ...(repeatable ? { style: "form", explode: true } : {}),
    };
  });
};
