import { checkReadiness, Health } from "@gleaner/core";
import * as Effect from "effect/Effect";
import * as Schema from "effect/Schema";
import { datasetRoutes } from "./datasets.js";
import { exportRoutes } from "./exports.js";
import { buildOpenApi } from "./openapi.js";
import type { Route } from "./route.js";
import { rowRoutes } from "./rows.js";
import { runRoutes } from "./runs.js";
import { sourceRoutes } from "./sources.js";
import { keyRoutes } from "./keys.js";
import { usageRoutes } from "./usage.js";
import { webhookRoutes } from "./webhooks.js";

const OpenApiDocument = Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
  identifier: "OpenApiDocument",
  description: "An OpenAPI 3.1 document.",
});

/** The public routes: liveness, readiness and this document. */
const metaRoutes = (all: () => ReadonlyArray<Route>): ReadonlyArray<Route> => {
  let document: unknown;
  return [
    {
      method: "get",
      path: "/healthz",
      operationId: "getHealth",
      tag: "Operations",
      summary: "Liveness",
      description: "Answers 200 while the process serves HTTP; it probes nothing else (see /readyz).",
      auth: false,
      success: { status: 200, description: "The process is up.", schema: Health },
      handle: () => Effect.succeed({ status: "ok" }),
    },
    {
      method: "get",
      path: "/readyz",
      operationId: "getReadiness",
      tag: "Operations",
      summary: "Readiness",
      description:
        "Answers 200 when storage (and the queue, where its adapter can be asked) answer, 503 `not_ready` naming the " +
        "dependency otherwise. Point a load balancer's readiness probe here.",
      auth: false,
      success: { status: 200, description: "Storage and queue answer.", schema: Health },
      errors: { 503: ["not_ready"] },
      handle: () => checkReadiness,
    },
    {
      method: "get",
      path: "/v1/openapi.json",
      operationId: "getOpenApi",
      tag: "Operations",
      summary: "This API's OpenAPI document",
      description: "The OpenAPI 3.1 document of every route this server answers, built from the same route table.",
      auth: false,
      success: { status: 200, description: "The OpenAPI document.", schema: OpenApiDocument },
      handle: () => Effect.sync(() => (document ??= buildOpenApi(all()))),
    },
  ];
};

/** Every operation the host answers. Adding an endpoint is one entry in one of these lists. */
export const routes: ReadonlyArray<Route> = [
  ...metaRoutes(() => routes),
  ...datasetRoutes,
  ...sourceRoutes,
  ...rowRoutes,
  ...exportRoutes,
  ...runRoutes,
  ...usageRoutes,
  ...keyRoutes,
  ...webhookRoutes,
];
