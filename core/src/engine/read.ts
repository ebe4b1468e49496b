import * as Clock from "effect/Clock";
import * as Effect from "effect/Effect";
import { DocumentParser, type ParseFailed, type ParsedDocument } from "../ports/document-parser.js";
import { originOnly } from "../reading/origin.js";
import { Fetcher, type FetchedPage, type FetchRequest, type ReadFailed } from "../ports/fetcher.js";
import type { DatasetColumn } from "../schema/column.js";
import type { ObservationEntry } from "../schema/row.js";
import type { ReadFailure } from "../schema/run.js";
import type { Source } from "../schema/source.js";
import { isoAt } from "../time.js";
import { sha256HexAndSize, utf8Size } from "../digest.js";
import { pageIdentity } from "../rules/page-identity.js";
import type { Coverage } from "./checks.js";
import { type ExtractedRecord, extractPage, type PageExtraction } from "./extract.js";
import type { AcceptedRead, StoredExtraction } from "../page-reads.js";
import type { PageReuse } from "../run-domain.js";
import type { DatasetId } from "../schema/ids.js";
import {
  conditionalFor,
  fromStoredExtraction,
  knownFor,
  recipeDigest,
  keptReads,
  reusable,
  sameBytes,
  sameText,
  storedPage,
  toStoredExtraction,
} from "./reuse.js";
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

const cap = (n: number) => Math.min(25, n);

/** The read failure of a fetched page the parser refused (`limit_exceeded` or `invalid_content`). */
const unparsable = (page: FetchedPage, error: ParseFailed | null): Pick<ReadFailed, "failure" | "message"> => ({
  failure: { reason: error?.reason ?? "invalid_content", status: page.status, finalUrl: originOnly(page.finalUrl) },
  message: error?.message ?? "the page could not be parsed",
});

/**
 * The next page's URL, or null when pagination ends on this page. Both selectors ask for the first
 * match only (`first` is `select(...)[0]`, the parser contract holds adapters to it).
 */
const nextUrl = (
  source: Source,
  document: ParsedDocument,
  resolve: (ref: string) => string | null,
  pageNumber: number,
): string | null => {
  const pagination = source.pagination;
  switch (pagination.kind) {
    case "none":
      return null;
    case "next-link": {
      const href = document.root.first(pagination.selector)?.attribute("href");
      return href ? resolve(href) : null;
    }
    case "url-pattern":
      if (document.root.first(pagination.endSelector) !== null) return null;
      return pagination.pattern.replace("{page}", String(pagination.startPage + pageNumber + 1));
  }
};

/** A read, asked conditionally when the kept read allows; a 304 stands for the kept page. */
const fetchPage = (request: FetchRequest, kept: AcceptedRead | null) =>
  Effect.gen(function* () {
    const fetcher = yield* Fetcher;
    const conditional = conditionalFor(kept);
    const known = knownFor(kept);
    const answer = yield* fetcher.read({
      ...request,
      ...(conditional ? { conditional } : {}),
      ...(known ? { known } : {}),
    });
    if (!answer.notModified) return { page: answer, notModified: false };
    // Only asked with a kept body; should a 304 come anyway, ask again without validators.
    if (kept === null || kept.body === null) return { page: yield* fetcher.read(request), notModified: false };
    return { page: storedPage(answer, kept), notModified: true };
  });

/** A page parsed and extracted, with where its pagination goes; null when the parser refused it. */
const parseAndExtract = (
  page: FetchedPage,
  source: Source,
  columns: ReadonlyArray<DatasetColumn>,
  limit: number,
  pageNumber: number,
) =>
  Effect.gen(function* () {
    const parser = yield* DocumentParser;
    const document = yield* parser.parse(page.body, page.finalUrl);
    try {
      const extracted = extractPage(document, page.finalUrl, source, columns, limit);
      return { extracted, next: nextUrl(source, document, document.resolveUrl, pageNumber) };
    } finally {
      document.dispose();
    }
  });

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
  // Asked once, before the first page (decision 0032): a run reads at most maxPages (50) pages.
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
    // either, so the rest of the run looks no further (decision 0021).
    if (pages.length === 0 && lastRead?.recipe !== recipe) lookIn = null;
    const kept = reusable(lastRead, recipe);
    const started = yield* Clock.currentTimeMillis;
    // Shown as a `running` read step (with its URL) to anyone watching the trace until it ends.
    const reading = yield* trace.begin("read", { sourceUrl: url.slice(0, 2048) });
    const request: FetchRequest = {
      url,
      render: source.render,
      proxy: source.proxy,
      ignoreRobots: source.ignoreRobots,
      waitForSelector: source.itemSelector,
      // One attempt's reads share a browser session (context, guard proxy, page) when rendering.
      runId: trace.attemptId,
    };
    const result = yield* Effect.either(fetchPage(request, kept));
    const finished = yield* Clock.currentTimeMillis;
    trace.end(reading);
    const timing = {
      startedAt: isoAt(started),
      durationMs: Math.max(0, Math.round(finished - started)),
    };
    const fetched = result._tag === "Right" ? result.right : null;
    // The kept body, when there, is the cheaper comparison: equal text is an equal digest.
    const keptBytes = fetched !== null && kept !== null && (fetched.notModified || sameText(kept, fetched.page));
    const { sha256, size } =
      fetched === null
        ? { sha256: "", size: 0 }
        : keptBytes && kept
          ? { sha256: kept.sha256, size: utf8Size(fetched.page.body) }
          : yield* sha256HexAndSize(fetched.page.body);
    if (fetched !== null && pages.length > 0) {
      const landed = pageIdentity(fetched.page.finalUrl);
      if (landed !== asked && visited.has(landed)) {
        yield* looped(url, `${url} redirects to ${fetched.page.finalUrl}, a page already read`);
        break;
      }
      if (digestsRead.has(sha256)) {
        yield* looped(url, `${url} is the same page as one already read, under another address`);
        break;
      }
    }
    const reuse =
      fetched !== null && kept !== null && (keptBytes || sameBytes(kept, fetched.page, sha256)) ? kept : null;
    // A reused page whose kept read came with its body: the store has those bytes (decision 0034).
    if (reuse !== null && reuse.body !== null) bodiesStored.add(sha256);
    const remaining = source.maxItems - records.length;
    // A page that fetched but cannot be parsed (over the document limits) fails its read alike; its
    // read step then spans the parse too. A page that parses has its parse in its extract step.
    const parsed =
      fetched === null || reuse !== null
        ? null
        : yield* Effect.either(parseAndExtract(fetched.page, source, columns, remaining + 1, pages.length));
    const parsedAt = yield* Clock.currentTimeMillis;
    if (fetched === null || parsed?._tag === "Left") {
      const error: Pick<ReadFailed, "failure" | "message"> =
        result._tag === "Left"
          ? result.left
          : unparsable(result.right.page, parsed?._tag === "Left" ? parsed.left : null);
      const stepId = trace.add({
        phase: "read",
        status: "failed",
        sourceUrl: url.slice(0, 2048),
        readFailure: error.failure,
        ...timing,
        durationMs: Math.max(0, Math.round(parsedAt - started)),
      });
      failures.push({ url, failure: error.failure, message: error.message, stepId });
      coverage = { complete: false, reason: `Reading ${url} failed (${error.failure.reason}): ${error.message}` };
      break;
    }
    const { page } = fetched;
    visited.add(pageIdentity(page.finalUrl));
    digestsRead.add(sha256);
    let extracted: PageExtraction;
    let stored: StoredExtraction;
    if (reuse !== null) {
      extracted = fromStoredExtraction(reuse.extraction!, page.finalUrl);
      stored = reuse.extraction!;
    } else {
      if (parsed?._tag !== "Right") break; // narrowed above: a failed parse already ended the read
      extracted = parsed.right.extracted;
      stored = toStoredExtraction(extracted, parsed.right.next);
      // The extract step is the page's parse and its extraction: both are the engine's own CPU time.
      trace.add({
        phase: "extract",
        status: "succeeded",
        sourceUrl: page.finalUrl.slice(0, 2048),
        startedAt: isoAt(finished),
        durationMs: Math.max(0, Math.round(parsedAt - finished)),
      });
    }
    const found = extracted.records.length;
    // Annotating costs five persistent-map updates a page: only when debug lines are written at all.
    yield* Effect.logDebug("page read").pipe(
      Effect.annotateLogs({
        url: page.finalUrl,
        status: page.status,
        records: found,
        attempts: page.attempts,
        reused: reuse !== null,
      }),
      Effect.whenLogLevel("Debug"),
    );
    trace.add({
      phase: "read",
      status: "succeeded",
      sourceUrl: page.finalUrl.slice(0, 2048),
      candidateRows: cap(found),
      matchedRows: cap(extracted.records.filter((r) => r.rowKey !== null).length),
      ...timing,
    });
    const reused =
      reuse === null
        ? null
        : { fromRunId: reuse.runId, basis: fetched.notModified ? ("not_modified" as const) : ("same_digest" as const) };
    if (found > remaining) {
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
