import * as Schema from "effect/Schema";
import { DatasetId, DateTime, RunId } from "./ids.js";

export const RunStatus = Schema.Literal("queued", "running", "succeeded", "failed", "blocked", "held");
export type RunStatus = typeof RunStatus.Type;
export const terminalRunStatuses: ReadonlyArray<RunStatus> = ["succeeded", "failed", "blocked", "held"];

export const CheckResult = Schema.Struct({
  checkId: Schema.String,
  passed: Schema.Boolean,
  message: Schema.optional(Schema.String),
}).annotations({ identifier: "CheckResult" });
export type CheckResult = typeof CheckResult.Type;

const Count = Schema.Int.pipe(Schema.greaterThanOrEqualTo(0));
export const RowDeltas = Schema.Struct({ new: Count, changed: Count, gone: Count });
export type RowDeltas = typeof RowDeltas.Type;

export const Run = Schema.Struct({
  id: RunId,
  datasetId: DatasetId,
  status: RunStatus,
  checks: Schema.Array(CheckResult),
  rowDeltas: RowDeltas,
  error: Schema.NullOr(Schema.String),
  queuedAt: DateTime,
  startedAt: Schema.NullOr(DateTime),
  completedAt: Schema.NullOr(DateTime),
}).annotations({ identifier: "Run" });
export type Run = typeof Run.Type;

export const ReadFailureReason = Schema.Literal(
  "challenge",
  "forbidden",
  "rate_limited",
  "login_redirect",
  "empty_body",
  "connection_reset",
  "robots_disallowed",
  "timeout",
  "cancelled",
  "network",
  "http_error",
  "invalid_content",
  "limit_exceeded",
  "unsafe_target",
  "unknown",
);
export type ReadFailureReason = typeof ReadFailureReason.Type;

export const ReadFailure = Schema.Struct({
  reason: ReadFailureReason,
  status: Schema.NullOr(Schema.Int.pipe(Schema.between(100, 599))),
  finalUrl: Schema.NullOr(Schema.String.pipe(Schema.maxLength(2048))),
}).annotations({ identifier: "ReadFailure" });
export type ReadFailure = typeof ReadFailure.Type;

export const ResearchPhase = Schema.Literal(
  "planning",
  "configure",
  "pin",
  "search",
  "read",
  "extract",
  "validate",
  "preview",
  "accept",
);
export type ResearchPhase = typeof ResearchPhase.Type;

const RowCounter = Schema.Int.pipe(Schema.between(0, 25));
export const RunTraceStep = Schema.Struct({
  stepId: Schema.UUID,
  attemptId: Schema.UUID,
  phase: ResearchPhase,
  status: Schema.Literal("running", "succeeded", "failed", "cancelled"),
  startedAt: DateTime,
  durationMs: Schema.optional(Count),
  candidateRows: Schema.optional(RowCounter),
  rejectedRows: Schema.optional(RowCounter),
  matchedRows: Schema.optional(RowCounter),
  sourceUrl: Schema.optional(Schema.String.pipe(Schema.maxLength(2048))),
  readFailure: Schema.optional(ReadFailure),
}).annotations({ identifier: "RunTraceStep" });
export type RunTraceStep = typeof RunTraceStep.Type;

export const RunTracePhase = Schema.Struct({ phase: ResearchPhase, count: Count, totalMs: Count, maxMs: Count });
export type RunTracePhase = typeof RunTracePhase.Type;

export const RunTrace = Schema.Struct({
  runId: RunId,
  datasetId: DatasetId,
  status: RunStatus,
  queueMs: Schema.NullOr(Count),
  wallMs: Schema.NullOr(Count),
  truncated: Schema.Boolean,
  phases: Schema.Array(RunTracePhase).pipe(Schema.maxItems(9)),
  steps: Schema.Array(RunTraceStep).pipe(Schema.maxItems(1000)),
  discovery: Schema.NullOr(Schema.Unknown),
  harnessVersion: Schema.NullOr(Schema.String.pipe(Schema.maxLength(100))),
}).annotations({ identifier: "RunTrace" });
export type RunTrace = typeof RunTrace.Type;
