/**
 * The domain: what datasets, runs, rows and webhooks are (Effect schemas and their types).
 * Import them from `@gleaner/core`.
 *
 * @module Domain
 */
export * from "../domain.js";
export * from "../errors.js";
export * from "../schema/column.js";
export * from "../schema/dataset.js";
export * from "../schema/ids.js";
export * from "../schema/row.js";
export * from "../schema/run.js";
export * from "../schema/diagnostics.js";
export * from "../schema/source.js";
export * from "../schema/usage.js";
export * from "../run-domain.js";
export * from "../page-reads.js";
export * from "../held-outcome.js";
export * from "../schema/drift.js";
export * from "../schema/requests-rows.js";
export * from "../schema/query.js";
export * from "../schema/responses.js";
export * from "../schema/requests-runs.js";
export * from "../schema/webhooks.js";
export * from "../schema/webhook-payloads.js";
export * from "../webhook-domain.js";
export * from "../schema/export.js";
export * from "../schema/research.js";
export * from "../schema/sources.js";
