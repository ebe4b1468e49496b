export * from "./decode.js";
export * from "./digest.js";
export * from "./domain.js";
export * from "./errors.js";
export * from "./ports/credits.js";
export * from "./ports/document-parser.js";
export * from "./ports/fetcher.js";
export * from "./ports/fetcher-by-render.js";
export * from "./ports/storage.js";
export { acceptedReadsOf, rowsPageStateOf } from "./storage-fallbacks.js";
export * from "./rules/acceptance.js";
export * from "./rules/api-keys.js";
export * from "./rules/cursor.js";
export * from "./rules/dataset-rules.js";
export * from "./rules/selector.js";
export * from "./schema/column.js";
export * from "./schema/dataset.js";
export * from "./schema/ids.js";
export * from "./schema/row.js";
export * from "./schema/run.js";
export * from "./schema/diagnostics.js";
export * from "./schema/source.js";
export * from "./schema/usage.js";
export * from "./time.js";
export * from "./usecases/datasets.js";
export * from "./usecases/find-dataset.js";
export * from "./usecases/owners.js";
export * from "./usecases/usage.js";
export * from "./reading/index.js";
export * from "./run-domain.js";
export * from "./page-reads.js";
export * from "./ports/run-queue.js";
export * from "./engine/checks.js";
export * from "./engine/coerce.js";
export * from "./engine/execute.js";
export * from "./engine/worker.js";
export * from "./diagnostics/index.js";
export * from "./usecases/run-insights.js";
export * from "./usecases/owner-limits.js";
export * from "./usecases/runs.js";
export * from "./usecases/held-runs.js";
export * from "./held-outcome.js";
export * from "./rules/drift.js";
export * from "./rules/retention.js";
export * from "./schema/drift.js";
export * from "./usecases/rows.js";
export * from "./usecases/rows-tag.js";
export * from "./usecases/row-edit.js";
export * from "./usecases/changes.js";
export * from "./schema/requests-rows.js";
export * from "./rules/cron.js";
export * from "./rules/schedule-state.js";
export * from "./engine/routines-live.js";
export * from "./usecases/routines.js";
export * from "./schema/query.js";
export * from "./schema/responses.js";
export * from "./schema/requests-runs.js";
export * from "./schema/webhooks.js";
export * from "./schema/webhook-payloads.js";
export * from "./webhook-domain.js";
export * from "./usecases/readiness.js";
export * from "./schema/export.js";
export * from "./rules/export-shape.js";
export * from "./usecases/exports.js";
export * from "./rules/webhook-delivery.js";
export * from "./rules/webhook-outbox.js";
export * from "./ports/webhook-storage.js";
export * from "./ports/webhook-sender.js";
export * from "./usecases/webhooks.js";
export * from "./engine/webhook-worker.js";
export * from "./engine/retention-worker.js";
export * from "./ports/language-model.js";
export * from "./ports/search-engine.js";
export * from "./ports/main-text.js";
export * from "./schema/research.js";
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
export * from "./schema/sources.js";
export * from "./usecases/sources.js";
export * from "./usecases/preview-limits.js";
export { defaultColumns, previewSource, previewColumns, previewRecordLimit } from "./engine/preview.js";
export { extractPage, type ExtractedRecord, type PageExtraction } from "./engine/extract.js";
export { suggestCandidates, type Candidate, type SuggestOptions } from "./suggest/suggest.js";
