/**
 * Gleaner's framework-agnostic core: every adapter and host imports from here only. The public API
 * is grouped in `api/`, one module per group, each a section of the generated reference.
 */
export * from "./api/domain.js";
export * from "./api/ports.js";
export * from "./api/use-cases.js";
export * from "./api/engine.js";
export * from "./api/rules.js";
export * from "./api/diagnostics.js";
export * from "./api/reading.js";
export * from "./api/helpers.js";
export * from "./api/promise-api.js";
