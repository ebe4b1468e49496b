/**
 * How complex a page may be before Gleaner refuses to parse it. Parsing and CSS selection run on
 * the thread that also serves the API, and both cost about the sum, over elements, of their depth
 * (htmlparser2 walks its open-element stack per tag; a descendant selector walks ancestors): a 2 MB
 * page of divs nested 200,000 deep took a minute. So three bounds:
 * - depth 256: browsers flatten anything deeper than 512 (Blink's parser), and real pages stay
 *   far below 100;
 * - 100,000 elements: ~20× a large listing page;
 * - 3,000,000 for the sum of all elements' depths: a 100,000-element page at an average depth of
 *   30. It is what bounds the work: 100,000 elements all 256 deep would be 25.6 million.
 * A parser stops at the first element past a bound and the read fails with `limit_exceeded`,
 * naming which one.
 */
export const DOCUMENT_MAX_DEPTH = 256;
export const DOCUMENT_MAX_ELEMENTS = 100_000;
export const DOCUMENT_MAX_TOTAL_DEPTH = 3_000_000;

export interface DocumentLimits {
  readonly maxDepth: number;
  readonly maxElements: number;
  readonly maxTotalDepth: number;
}

export const documentLimits: DocumentLimits = {
  maxDepth: DOCUMENT_MAX_DEPTH,
  maxElements: DOCUMENT_MAX_ELEMENTS,
  maxTotalDepth: DOCUMENT_MAX_TOTAL_DEPTH,
};

export type DocumentLimit = "depth" | "elements" | "total-depth";

/**
 * Counts elements as a parser opens them; `open(depth)` names the first bound the page exceeds,
 * or null. One per parse: the adapters share the rule.
 */
export class DocumentBudget {
  private elements = 0;
  private totalDepth = 0;

  constructor(private readonly limits: DocumentLimits = documentLimits) {}

  /** Records an element opened at `depth` (html is 1). */
  open(depth: number): DocumentLimit | null {
    this.elements++;
    this.totalDepth += depth;
    if (depth > this.limits.maxDepth) return "depth";
    if (this.elements > this.limits.maxElements) return "elements";
    if (this.totalDepth > this.limits.maxTotalDepth) return "total-depth";
    return null;
  }
}

/** Why a page is over the limits, as the read failure message says it. */
export const documentLimitMessage = (limit: DocumentLimit, limits: DocumentLimits = documentLimits): string => {
  switch (limit) {
    case "depth":
      return `the page nests elements more than ${limits.maxDepth} levels deep`;
    case "elements":
      return `the page has more than ${limits.maxElements} elements`;
    case "total-depth":
      return `the page nests its elements too deeply overall (their depths add up to more than ${limits.maxTotalDepth})`;
  }
};
