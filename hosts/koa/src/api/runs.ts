import {
  acceptHeldRun,
  ArtifactIndex,
  ArtifactResponse,
  CreateRunBody,
  createRun,
  DiagnosticsQuery,
  DiagnosticsResponse,
  getArtifact,
  getDiagnostics,
  getRun,
  getTrace,
  listArtifacts,
  listRuns,
  RunCreated,
  RunList,
  RunListQuery,
  RunResponse,
  TraceResponse,
} from "@gleaner/core";
import * as Effect from "effect/Effect";
import { datasetIdParam } from "./datasets.js";
import { type Route, route } from "./route.js";

const runIdParam = { runId: { resource: "run", description: "The run's id (a UUID)." } };

/** Endpoints 9-15. */
export const runRoutes: ReadonlyArray<Route> = [
  route({
    method: "get",
    path: "/v1/datasets/{datasetId}/runs",
    operationId: "listRuns",
    tag: "Runs",
    summary: "List a dataset's runs",
    description: "The dataset's runs, newest first, with their status, checks and row deltas.",
    auth: true,
    pathParams: datasetIdParam,
    query: RunListQuery,
    success: { status: 200, description: "Runs, newest first.", schema: RunList },
    handle: ({ owner, params, query }) => listRuns(owner.id, params.datasetId, query),
  }),
  route({
    method: "post",
    path: "/v1/datasets/{datasetId}/runs",
    operationId: "createRun",
    tag: "Runs",
    summary: "Start a run",
    description:
      "Durably queues a manual run and answers at once; poll `GET /v1/runs/{runId}` (or its trace) to follow it. " +
      "Needs a balance of at least one credit; nothing is charged until every check passes, and then one credit per " +
      "distinct checked page. Only one run of a dataset is queued or running at a time (409 `run_in_progress`). " +
      'The body is optional: none (or `{}`) starts a deterministic run; `{"kind":"research"}` starts a ' +
      "model-assisted research run answering the dataset's question (422 `validation_error` when it has none, " +
      "422 `research_unavailable` when this server has no language model configured). A run that passes its checks " +
      "but does not look like the dataset (far fewer records, half the rows gone, or a column emptied) is `held`; " +
      '`{"acceptDrift":true}` accepts it anyway.',
    auth: true,
    pathParams: datasetIdParam,
    body: CreateRunBody,
    success: { status: 202, description: "The run is queued.", schema: RunCreated },
    errors: {
      402: ["insufficient_credits"],
      409: ["run_in_progress"],
      429: ["rate_limited"],
      422: ["research_unavailable"],
      503: ["queue_unavailable"],
    },
    // core decides: the body's kind, the dataset's question and whether a model is configured.
    handle: ({ owner, params, body }) => createRun(owner.id, params.datasetId, body),
  }),
  route({
    method: "get",
    path: "/v1/runs/{runId}",
    operationId: "getRun",
    tag: "Runs",
    summary: "Read a run",
    description:
      "The run's status (`queued`, `running`, then `succeeded`, `failed`, `blocked` or `held`), its checks and row " +
      "deltas. Only a `succeeded` run wrote rows or cost credits.",
    auth: true,
    pathParams: runIdParam,
    success: { status: 200, description: "The run.", schema: RunResponse },
    handle: ({ owner, params }) => Effect.map(getRun(owner.id, params.runId), (run) => ({ run })),
  }),
  route({
    method: "post",
    path: "/v1/runs/{runId}/accept",
    operationId: "acceptRun",
    tag: "Runs",
    summary: "Accept a held run",
    description:
      "Accepts what a `held` run read, now, without reading the site again: a run held because it did not look like " +
      "the dataset (drift), or because the owner could not pay, once the balance covers it. The same acceptance as a " +
      "run's: rows, revisions, the change feed and webhooks, charged once (one credit per distinct checked page). " +
      "The run becomes `succeeded`, completed now. 409 `run_not_held` when the run is not held; 409 `run_stale` when " +
      "the dataset's rows or columns changed since the run read them, or a later run started (run it again); 402 " +
      "when the balance is short.",
    auth: true,
    pathParams: runIdParam,
    success: { status: 200, description: "The run, accepted.", schema: RunResponse },
    errors: { 402: ["insufficient_credits"], 409: ["run_not_held", "run_stale"] },
    handle: ({ owner, params }) => acceptHeldRun(owner.id, params.runId),
  }),
  route({
    method: "get",
    path: "/v1/runs/{runId}/artifacts",
    operationId: "listArtifacts",
    tag: "Runs",
    summary: "List a run's artifacts",
    description:
      "The index of bodies the run recorded (pages as read; for research runs also planning and extraction output), " +
      "without the bodies; at most 200, `truncated` when there are more. Kept 30 days.",
    auth: true,
    pathParams: runIdParam,
    success: { status: 200, description: "The artifact index.", schema: ArtifactIndex },
    handle: ({ owner, params }) => listArtifacts(owner.id, params.runId),
  }),
  route({
    method: "get",
    path: "/v1/runs/{runId}/artifacts/{artifactId}",
    operationId: "getArtifact",
    tag: "Runs",
    summary: "Read one artifact",
    description: "One artifact with its body; the body is null when it exceeded 64 KiB (hash and size remain).",
    auth: true,
    pathParams: { ...runIdParam, artifactId: { resource: "artifact", description: "The artifact's id (a UUID)." } },
    success: { status: 200, description: "The artifact with its body.", schema: ArtifactResponse },
    handle: ({ owner, params }) => getArtifact(owner.id, params.runId, params.artifactId),
  }),
  route({
    method: "get",
    path: "/v1/runs/{runId}/diagnostics",
    operationId: "getDiagnostics",
    tag: "Runs",
    summary: "Explain a run's losses",
    description:
      "Why rows or cells are missing, stage by stage, from what the run recorded. `summary=true` adds run-wide loss " +
      "groups and cannot be combined with `entity` or `field`; `entity` (an exact recorded name) adds a connected " +
      "diagnosis; `field` (a Field id or exact label) needs `entity`. Observations, findings and unknowns are kept apart.",
    auth: true,
    pathParams: runIdParam,
    query: DiagnosticsQuery,
    success: { status: 200, description: "The run's diagnostics.", schema: DiagnosticsResponse },
    handle: ({ owner, params, query }) => getDiagnostics(owner.id, params.runId, query),
  }),
  route({
    method: "get",
    path: "/v1/runs/{runId}/trace",
    operationId: "getTrace",
    tag: "Runs",
    summary: "Read a run's trace",
    description:
      "Timing of the run's steps and phases, written while the run works: a running run shows the steps so far " +
      "(a step in progress has status `running`). Phase totals sum overlapping work and are not wall time. No " +
      "prompts, page bodies or provider errors.",
    auth: true,
    pathParams: runIdParam,
    success: { status: 200, description: "The run's trace.", schema: TraceResponse },
    handle: ({ owner, params }) => getTrace(owner.id, params.runId),
  }),
];
