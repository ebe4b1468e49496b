// What every contender extracts from a listing page of the local books site.
import { booksDataset as conformanceBooksDataset, booksSiteAddresses } from "@gleaner/conformance";

export const PAGES = 50;
export const BOOKS = 1000;

/** The Gleaner dataset of the conformance suite: identity = the book's link, title and price required. */
export const booksDataset = (siteUrl: string) =>
  conformanceBooksDataset(booksSiteAddresses(siteUrl), "next-link", (body) => {
    body.name = `Books bench ${globalThis.crypto.randomUUID().slice(0, 8)}`;
    body.source.maxPages = PAGES;
  });

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

export const report = (result: ChildResult): void => {
  process.stdout.write(`\n${RESULT_MARKER}${JSON.stringify(result)}\n`);
};

/** Peak resident set size of this process so far, in MB (resourceUsage().maxRSS is in KB). */
export const peakRssMb = (): number => process.resourceUsage().maxRSS / 1024;
