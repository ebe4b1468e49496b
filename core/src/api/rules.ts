/**
 * Rules: each of Gleaner's rules, named once, for every adapter alike.
 * Import them from `@gleaner/core`.
 *
 * @module Rules
 */
export * from "../rules/acceptance.js";
export * from "../rules/api-keys.js";
export * from "../rules/cursor.js";
export * from "../rules/dataset-rules.js";
export * from "../rules/selector.js";
export * from "../rules/drift.js";
export * from "../rules/retention.js";
export { httpStatusOf, isApiError } from "../rules/http-status.js";
export { checkLine, checkName, failedChecksMessage } from "../rules/run-errors.js";
export * from "../rules/cron.js";
export * from "../rules/schedule-state.js";
export * from "../rules/export-shape.js";
export * from "../rules/webhook-delivery.js";
export * from "../rules/webhook-outbox.js";
