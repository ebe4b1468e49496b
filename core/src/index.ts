/**
 * Gleaner's framework-agnostic core. Grouped by what a reader comes for; every adapter
 * and host imports from here only.
 */

// The domain: what datasets, runs, rows and webhooks are (Effect schemas and their types)
export * from "./domain.js";
export * from "./errors.js";
export * from "./schema/column.js";
export * from "./schema/dataset.js";
export * from "./schema/ids.js";
export * from "./schema/row.js";
export * from "./schema/run.js";
export * from "./schema/diagnostics.js";
export * from "./schema/source.js";
export * from "./schema/usage.js";
export * from "./run-domain.js";
export * from "./page-reads.js";
export * from "./held-outcome.js";
export * from "./schema/drift.js";
export * from "./schema/requests-rows.js";
export * from "./schema/query.js";
export * from "./schema/responses.js";
export * from "./schema/requests-runs.js";
export * from "./schema/webhooks.js";
export * from "./schema/webhook-payloads.js";
export * from "./webhook-domain.js";
export * from "./schema/export.js";
export * from "./schema/research.js";
export * from "./schema/sources.js";

// Ports: what an adapter implements (storage, queue, fetcher, parser, credits, model, search)
export * from "./ports/credits.js";
export * from "./ports/document-parser.js";
export * from "./ports/fetcher.js";
export * from "./ports/fetcher-by-render.js";
export * from "./ports/storage.js";
export { acceptedReadsOf, rowsPageStateOf } from "./storage-fallbacks.js";
export * from "./ports/run-queue.js";
export * from "./ports/webhook-storage.js";
export * from "./ports/metrics.js";
export * from "./ports/webhook-sender.js";
export * from "./ports/language-model.js";
export * from "./ports/search-engine.js";
export * from "./ports/main-text.js";

// Use cases: what the HTTP API does, one function per operation
export * from "./usecases/datasets.js";
export * from "./usecases/find-dataset.js";
export * from "./usecases/owners.js";
export * from "./usecases/keys.js";
export * from "./usecases/usage.js";
export * from "./usecases/run-insights.js";
export * from "./usecases/owner-limits.js";
export * from "./usecases/runs.js";
export * from "./usecases/held-runs.js";
export * from "./usecases/rows.js";
export * from "./usecases/rows-tag.js";
export * from "./usecases/row-edit.js";
export * from "./usecases/changes.js";
export * from "./usecases/routines.js";
export * from "./usecases/readiness.js";
export * from "./usecases/exports.js";
export * from "./usecases/webhooks.js";
export * from "./usecases/sources.js";
export * from "./usecases/preview-limits.js";

// The engine: runs, the worker, routines, webhook delivery, retention, research
export * from "./engine/checks.js";
export * from "./engine/coerce.js";
export * from "./engine/execute.js";
export * from "./engine/worker.js";
export * from "./engine/routines-live.js";
export * from "./engine/webhook-worker.js";
export { ReceiverGate } from "./engine/receiver-gate.js";
export * from "./engine/retention-worker.js";
export { meteredFetcher, meteredStorage, meteredWebhookSender } from "./engine/metered.js";
export { harnessVersion } from "./engine/research/prompts.js";
export {
  chunkCharsFor,
  ModelBudget,
  outputTokensFor,
  splitIntoChunks,
} from "./engine/research/chunks.js";
export { bareNameKey, groundingText, nameKey } from "./engine/research/grounding.js";
export { quantityOf } from "./engine/research/quantities.js";
export {
  answersFromArtifacts,
  type RecordedAnswer,
  ReplayLanguageModelLive,
  replayLanguageModel,
} from "./engine/research/replay.js";
export { defaultColumns, previewSource, previewColumns, previewRecordLimit } from "./engine/preview.js";
export { extractPage, type ExtractedRecord, type PageExtraction } from "./engine/extract.js";
export { suggestCandidates, type Candidate, type SuggestOptions } from "./suggest/suggest.js";

// Rules: each of Gleaner's rules, named once, for every adapter alike
export * from "./rules/acceptance.js";
export * from "./rules/api-keys.js";
export * from "./rules/cursor.js";
export * from "./rules/dataset-rules.js";
export * from "./rules/selector.js";
export * from "./rules/drift.js";
export * from "./rules/retention.js";
export { httpStatusOf, isApiError } from "./rules/http-status.js";
export { checkName, failedChecksMessage } from "./rules/run-errors.js";
export * from "./rules/cron.js";
export * from "./rules/schedule-state.js";
export * from "./rules/export-shape.js";
export * from "./rules/webhook-delivery.js";
export * from "./rules/webhook-outbox.js";

// Diagnostics: why a run lost what it lost, from what it recorded
export * from "./diagnostics/index.js";

// Reading pages: the SSRF policy, robots.txt and response classification fetchers share
export * from "./reading/index.js";

// Small helpers adapters and hosts use: decoding, digests, time
export * from "./decode.js";
export * from "./decode-request.js";
export * from "./digest.js";
export * from "./time.js";

// Embedding without Effect: Promises, typed inputs and outputs, errors with the HTTP API's codes
export {
  type ChangeListOptions,
  createGleaner,
  type DiagnosticsOptions,
  type Gleaner,
  type GleanerOptions,
  type QueryOptions,
  type RowListOptions,
} from "./promise-api.js";
export {
  BadRequestError,
  ConflictError,
  type ErrorCode,
  GleanerError,
  InsufficientCreditsError,
  InternalError,
  NotFoundError,
  RateLimitedError,
  RunWaitTimeoutError,
  UnauthorizedError,
  UnavailableError,
  ValidationFailedError,
} from "./promise-errors.js";
