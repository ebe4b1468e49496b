import * as Clock from "effect/Clock";
import * as Effect from "effect/Effect";
import type { FetchedPage } from "../ports/fetcher.js";
import type { DatasetColumn } from "../schema/column.js";
import type { ObservationEntry } from "../schema/row.js";
import type { ReadFailure } from "../schema/run.js";
import type { Source } from "../schema/source.js";
import { isoAt } from "../time.js";
import { pageIdentity } from "../rules/page-identity.js";
import type { Coverage } from "./checks.js";
import type { ExtractedRecord } from "./extract.js";
import type { AcceptedRead, PageReadsToKeep, StoredExtraction } from "../page-reads.js";
import type { PageReuse } from "../run-domain.js";
import type { DatasetId } from "../schema/ids.js";
import { recipeDigest, keptReads, reusable } from "./reuse.js";
import { type PageOutcome, readPage } from "./read-page.js";
import type { TraceRecorder } from "./trace.js";

/** A page that was read and extracted. */
export interface ReadPage {
  readonly page: FetchedPage;
  /** Hex SHA-256 of the body: the observation's content digest and the artifact's hash. */
  readonly sha256: string;
  /** The body's size in UTF-8 bytes (its artifact's size), counted when it was hashed. */
  readonly size: number;
  readonly entries: ReadonlyArray<ObservationEntry>;
  readonly records: ReadonlyArray<ExtractedRecord>;
  /** The page's whole extraction as a store keeps it (the next run may reuse it). */
  readonly stored: StoredExtraction;
  /** Where the records came from when the page was not parsed: the accepted run that parsed it. */
  readonly reused: Omit<PageReuse, "url"> | null;
}

export interface ReadOutcome {
  /** The digest of the recipe the pages were extracted under (reuse.ts). */
  readonly recipe: string;
  readonly pages: ReadonlyArray<ReadPage>;
  readonly records: ReadonlyArray<ExtractedRecord>;
  readonly failures: ReadonlyArray<{
    readonly url: string;
    readonly failure: ReadFailure;
    readonly message: string;
    /** The trace step that recorded the failed read. */
    readonly stepId: string;
  }>;
  readonly coverage: Coverage;
  /**
   * Digests of the bodies the store served the run with its kept reads (reused pages): stored
   * already, so the acceptance need not send them again (RunAcceptance.bodiesStored).
   */
  readonly bodiesStored: ReadonlyArray<string>;
  /** A preview's reading stopped at its page limit: the next page, left unread (runs never set it). */
  readonly unread?: string;
}

/**
 * Reads the source's pages in pagination order and extracts each one as it arrives. Stops at the
 * natural end, at the first failed read, at a link back to a visited page, or at maxPages/maxItems
 * (which leaves coverage incomplete when more remains). With `reuseFrom` (a deterministic run's
 * dataset), a page whose bytes and recipe are those of the dataset's newest accepted read takes
 * that read's extraction instead of being parsed (reuse.ts); it has a read step and no extract step.
 * A preview passes `stopAfterPages`: past it, reading stops with coverage untouched and the next
 * page named in `unread` (the source's own maxPages still ends coverage as in a run).
 */
export const readSource = Effect.fn("run.read")(function* (
  source: Source,
  columns: ReadonlyArray<DatasetColumn>,
  trace: TraceRecorder,
  reuseFrom: DatasetId | null = null,
  stopAfterPages: number = Number.POSITIVE_INFINITY,
) {
  const pages: ReadPage[] = [];
  const records: ExtractedRecord[] = [];
  const failures: Array<ReadOutcome["failures"][number]> = [];
  // Identities (page-identity.ts) of every page asked for or landed on, and digests of the bodies read:
  // pagination that comes back to one of them has looped, and ends there.
  const visited = new Set<string>();
  const digestsRead = new Set<string>();
  /** Ends pagination at `at`, a page already read, with a trace note: a read step not made (`cancelled`). */
  const looped = (at: string, why: string) =>
    Effect.gen(function* () {
      trace.add({
        phase: "read",
        status: "cancelled",
        sourceUrl: at.slice(0, 2048),
        startedAt: isoAt(yield* Clock.currentTimeMillis),
        durationMs: 0,
      });
      yield* Effect.logInfo(`pagination ended: ${why}`).pipe(Effect.annotateLogs({ url: at }));
    });
  const recipe = yield* recipeDigest(source, columns);
  // Asked once, before the first page (decision 0042): a run reads at most maxPages (50) pages.
  let lookIn: ReadonlyMap<string, AcceptedRead> | null = yield* keptReads(reuseFrom);
  let url: string | null = source.url;
  let coverage: Coverage = { complete: true };
  const bodiesStored = new Set<string>();
  let unread: string | null = null;

  while (url !== null) {
    const asked = pageIdentity(url);
    if (visited.has(asked)) {
      yield* looped(url, "the next page is one already read");
      break;
    }
    if (pages.length >= source.maxPages) {
      coverage = {
        complete: false,
        reason: `Stopped after maxPages (${source.maxPages}) pages while more remain: ${url} was not read.`,
      };
      break;
    }
    if (pages.length >= stopAfterPages) {
      unread = url;
      break;
    }
    visited.add(asked);
    const lastRead = lookIn?.get(url) ?? null;
    // A store keeps one accepted run's reads, all under one recipe, the start URL's among them: when
    // the start URL has none under this recipe (a first run, a new column), no later page has one
    // either, so the rest of the run looks no further (decision 0042).
    if (pages.length === 0 && lastRead?.recipe !== recipe) lookIn = null;
    const remaining = source.maxItems - records.length;
    const at: string = url;
    const outcome: PageOutcome = yield* readPage(
      {
        url,
        source,
        columns,
        kept: reusable(lastRead, recipe),
        remaining,
        pageNumber: pages.length,
        alreadyRead: (finalUrl, sha256) => {
          if (pages.length === 0) return null;
          const landed = pageIdentity(finalUrl);
          if (landed !== asked && visited.has(landed)) return `${at} redirects to ${finalUrl}, a page already read`;
          if (digestsRead.has(sha256)) return `${at} is the same page as one already read, under another address`;
          return null;
        },
      },
      trace,
    );
    if (outcome._tag === "Looped") {
      yield* looped(url, outcome.why);
      break;
    }
    if (outcome._tag === "Failed") {
      failures.push({ url, failure: outcome.failure, message: outcome.message, stepId: outcome.stepId });
      coverage = { complete: false, reason: `Reading ${url} failed (${outcome.failure.reason}): ${outcome.message}` };
      break;
    }
    const { page, sha256, size, extracted, reused } = outcome;
    const stored: StoredExtraction = outcome.stored;
    if (outcome.bodyStored) bodiesStored.add(sha256);
    visited.add(pageIdentity(page.finalUrl));
    digestsRead.add(sha256);
    if (extracted.records.length > remaining) {
      pages.push({
        sha256,
        size,
        page,
        entries: extracted.entries.slice(0, remaining),
        records: extracted.records.slice(0, remaining),
        stored,
        reused,
      });
      records.push(...extracted.records.slice(0, remaining));
      coverage = {
        complete: false,
        reason: `More than maxItems (${source.maxItems}) records; ${page.finalUrl} holds more.`,
      };
      break;
    }
    pages.push({ page, sha256, size, ...extracted, stored, reused });
    records.push(...extracted.records);
    url = stored.next;
  }
  const outcome: ReadOutcome = { recipe, pages, records, failures, coverage, bodiesStored: [...bodiesStored] };
  return unread === null ? outcome : { ...outcome, unread };
});

/** The pages whose extraction a run reused, as its plan records them. */
export const reusedPages = (read: ReadOutcome): ReadonlyArray<PageReuse> =>
  read.pages.flatMap((p) => (p.reused === null ? [] : [{ url: p.page.finalUrl, ...p.reused }]));

/** Every page an accepted run read, for the store to keep in place of the previous run's. */
export const pageReadsToKeep = (read: ReadOutcome): PageReadsToKeep => ({
  recipe: read.recipe,
  pages: read.pages.map((p) => ({
    url: p.page.requestedUrl,
    finalUrl: p.page.finalUrl,
    sha256: p.sha256,
    contentType: p.page.contentType,
    etag: p.page.validators?.etag ?? null,
    lastModified: p.page.validators?.lastModified ?? null,
    extraction: p.stored,
    reused: p.reused !== null,
    body: p.page.body,
  })),
});
