/**
 * Use cases: what the HTTP API does, one function per operation.
 * Import them from `@gleaner/core`.
 *
 * @module Use cases
 */
export * from "../usecases/datasets.js";
export * from "../usecases/find-dataset.js";
export * from "../usecases/owners.js";
export * from "../usecases/keys.js";
export * from "../usecases/usage.js";
export * from "../usecases/run-insights.js";
export * from "../usecases/owner-limits.js";
export * from "../usecases/runs.js";
export * from "../usecases/held-runs.js";
export * from "../usecases/rows.js";
export * from "../usecases/rows-tag.js";
export * from "../usecases/row-edit.js";
export * from "../usecases/changes.js";
export * from "../usecases/routines.js";
export * from "../usecases/readiness.js";
export * from "../usecases/exports.js";
export * from "../usecases/webhooks.js";
export * from "../usecases/sources.js";
export * from "../usecases/preview-limits.js";
