/**
 * Diagnostics: why a run lost what it lost, from what it recorded.
 * Import them from `@gleaner/core`.
 *
 * @module Diagnostics
 */
export * from "../diagnostics/index.js";
