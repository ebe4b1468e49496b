/**
 * How complex a page may be before Gleaner refuses to parse it. Parsing and CSS selection run on
 * the thread that also serves the API, and both grow with depth × size: a 2 MB page of divs nested
 * 200,000 deep took a minute. Browsers flatten anything deeper than 512 levels (Blink's HTML
 * parser stops nesting there), so no page that renders as intended needs more; the element bound
 * is ~20× a large listing page. A parser stops at the first element past either bound and the
 * read fails with `limit_exceeded`, naming which one.
 */
export const DOCUMENT_MAX_DEPTH = 512;
export const DOCUMENT_MAX_ELEMENTS = 100_000;

export interface DocumentLimits {
  readonly maxDepth: number;
  readonly maxElements: number;
}

export const documentLimits: DocumentLimits = { maxDepth: DOCUMENT_MAX_DEPTH, maxElements: DOCUMENT_MAX_ELEMENTS };

/** Why a page is over the limits, as the read failure message says it. */
export const documentLimitMessage = (limit: "depth" | "elements", limits: DocumentLimits = documentLimits): string =>
  limit === "depth"
    ? `the page nests elements more than ${limits.maxDepth} levels deep`
    : `the page has more than ${limits.maxElements} elements`;
