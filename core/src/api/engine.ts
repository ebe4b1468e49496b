/**
 * The engine: runs, the worker, routines, webhook delivery, retention, research.
 * Import them from `@gleaner/core`.
 *
 * @module Engine
 */
export * from "../engine/checks.js";
export * from "../engine/coerce.js";
export * from "../engine/execute.js";
export * from "../engine/worker.js";
export * from "../engine/routines-live.js";
export * from "../engine/webhook-worker.js";
export { ReceiverGate } from "../engine/receiver-gate.js";
export * from "../engine/retention-worker.js";
export { meteredFetcher, meteredStorage, meteredWebhookSender } from "../engine/metered.js";
export { harnessVersion } from "../engine/research/prompts.js";
export {
  chunkCharsFor,
  ModelBudget,
  outputTokensFor,
  splitIntoChunks,
} from "../engine/research/chunks.js";
export { bareNameKey, groundingText, nameKey } from "../engine/research/grounding.js";
export { type DecimalSign, quantityOf } from "../engine/research/quantities.js";
export {
  answersFromArtifacts,
  type RecordedAnswer,
  ReplayLanguageModelLive,
  replayLanguageModel,
} from "../engine/research/replay.js";
export { defaultColumns, previewSource, previewColumns, previewRecordLimit } from "../engine/preview.js";
export { extractPage, type ExtractedRecord, type PageExtraction } from "../engine/extract.js";
export { suggestCandidates, type Candidate, type SuggestOptions } from "../suggest/suggest.js";
