/**
 * Small helpers adapters and hosts use: decoding, digests, time.
 * Import them from `@gleaner/core`.
 *
 * @module Helpers
 */
export * from "../decode.js";
export * from "../decode-request.js";
export * from "../digest.js";
export * from "../time.js";
