/**
 * Reading pages: the SSRF policy, robots.txt and response classification fetchers share.
 * Import them from `@gleaner/core`.
 *
 * @module Reading
 */
export * from "../reading/index.js";
