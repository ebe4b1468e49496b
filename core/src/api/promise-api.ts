/**
 * Embedding without Effect: Promises, typed inputs and outputs, errors with the HTTP API's codes.
 * Import them from `@gleaner/core`.
 *
 * @module Promise API
 */
export { createGleaner, type Gleaner, GleanerError, type GleanerOptions } from "../promise-api.js";
