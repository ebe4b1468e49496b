/**
 * Ports: what an adapter implements (storage, queue, fetcher, parser, credits, model, search).
 * Import them from `@gleaner/core`.
 *
 * @module Ports
 */
export * from "../ports/credits.js";
export * from "../ports/document-parser.js";
export * from "../ports/fetcher.js";
export * from "../ports/fetcher-by-render.js";
export * from "../ports/storage.js";
export { acceptedReadsOf, rowsPageStateOf } from "../storage-fallbacks.js";
export * from "../ports/run-queue.js";
export * from "../ports/webhook-storage.js";
export * from "../ports/metrics.js";
export * from "../ports/webhook-sender.js";
export * from "../ports/language-model.js";
export * from "../ports/search-engine.js";
export * from "../ports/main-text.js";
