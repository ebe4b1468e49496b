// What every contender extracts from a listing page of the local books site, and how a child reports.
// This module imports nothing of Gleaner: the Crawlee children load it, and a Crawlee process must carry
// only Crawlee (run.ts checks that these selectors equal the conformance suite's).

export const PAGES = 50;
export const BOOKS = 1000;

/** The selectors that read the books site (a copy of the conformance suite's BOOKS_SELECTORS). */
export const SELECTORS = {
  item: "article.product_pod",
  link: "h3 > a", // attribute `href`; attribute `title` is the full title
  price: "p.price_color",
  rating: "p.star-rating",
  availability: "p.instock.availability",
  nextLink: "li.next > a",
} as const;

/** A row as the Crawlee contenders build it: the same five reads, link resolved, price a number. */
export interface BookRow {
  readonly link: string;
  readonly title: string;
  readonly price: number;
  readonly rating: string | null;
  readonly availability: string | null;
}

/** Turns one item's raw reads into a row (same trimming, resolution and number parsing for every contender). */
export const toRow = (
  pageUrl: string,
  href: string | null | undefined,
  title: string | null | undefined,
  price: string | null | undefined,
  rating: string | null | undefined,
  availability: string | null | undefined,
): BookRow => ({
  link: new URL(href ?? "", pageUrl).href,
  title: (title ?? "").trim(),
  price: Number((price ?? "").replace(/[^0-9.]/g, "")),
  rating: rating?.trim() || null,
  availability: availability?.replace(/\s+/g, " ").trim() || null,
});

/** The crawl-only contenders' "checks": 1000 distinct links, every title and price present. Throws otherwise. */
export const checkRows = (rows: readonly BookRow[]): void => {
  const links = new Set(rows.map((r) => r.link));
  const bad = rows.filter((r) => r.title === "" || !Number.isFinite(r.price) || r.price <= 0);
  if (rows.length !== BOOKS || links.size !== BOOKS || bad.length > 0) {
    throw new Error(
      `expected ${BOOKS} distinct complete rows, got ${rows.length} (${links.size} distinct, ${bad.length} bad)`,
    );
  }
};

/** What a child prints on its last line (after the marker), read by run.ts. */
export interface ChildResult {
  readonly contender: string;
  readonly wallMs: number;
  readonly pages: number;
  readonly rows: number;
  readonly peakRssMb: number;
  readonly extra?: Record<string, unknown>;
}

export const RESULT_MARKER = "@@bench-result ";
/**
 * Printed the moment the first piece of work is done (Gleaner: first run `succeeded`; Crawlee: crawl
 * done and rows checked), followed by the process's peak RSS so far in MB. The parent timestamps
 * the line's arrival: spawn → this line is the whole-process figure.
 */
export const DONE_MARKER = "@@bench-done ";

/** A Crawlee child's environment: its own storage folder, purged at start and never persisted. */
export const crawleeEnv = (storage: string): NodeJS.ProcessEnv => ({
  ...process.env,
  CRAWLEE_STORAGE_DIR: storage,
  CRAWLEE_PURGE_ON_START: "true",
  CRAWLEE_PERSIST_STORAGE: "false",
});

export const report = (result: ChildResult): void => {
  process.stdout.write(`\n${RESULT_MARKER}${JSON.stringify(result)}\n`);
};

/** Peak resident set size of this process so far, in MB (resourceUsage().maxRSS is in KB). */
export const peakRssMb = (): number => process.resourceUsage().maxRSS / 1024;

export const reportDone = (): void => {
  process.stdout.write(`\n${DONE_MARKER}${peakRssMb()}\n`);
};
