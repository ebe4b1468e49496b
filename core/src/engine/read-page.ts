import * as Clock from "effect/Clock";
import * as Effect from "effect/Effect";
import { sha256HexAndSize, utf8Size } from "../digest.js";
import type { AcceptedRead, StoredExtraction } from "../page-reads.js";
import { DocumentParser, type ParseFailed, type ParsedDocument } from "../ports/document-parser.js";
import { Fetcher, type FetchedPage, type FetchRequest, type ReadFailed } from "../ports/fetcher.js";
import { originOnly } from "../reading/origin.js";
import type { PageReuse } from "../run-domain.js";
import type { DatasetColumn } from "../schema/column.js";
import type { ReadFailure } from "../schema/run.js";
import type { Source } from "../schema/source.js";
import { isoAt } from "../time.js";
import { extractPage, type PageExtraction } from "./extract.js";
import {
  conditionalFor,
  fromStoredExtraction,
  knownFor,
  sameBytes,
  sameText,
  storedPage,
  toStoredExtraction,
} from "./reuse.js";
import type { TraceRecorder } from "./trace.js";

/**
 * One page of a run: read it (conditionally when a kept read allows), then take the kept read's
 * extraction when the bytes are that read's, or parse and extract it. The pagination loop (read.ts)
 * decides which page comes next and when reading ends; this step only reads the page it is given.
 */

const cap = (n: number) => Math.min(25, n);

/**
 * The next page's URL, or null when pagination ends on this page. Both selectors ask for the first
 * match only (`first` is `select(...)[0]`, the parser contract holds adapters to it).
 */
export const nextUrl = (
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

/** The read failure of a fetched page the parser refused (`limit_exceeded` or `invalid_content`). */
const unparsable = (page: FetchedPage, error: ParseFailed | null): Pick<ReadFailed, "failure" | "message"> => ({
  failure: { reason: error?.reason ?? "invalid_content", status: page.status, finalUrl: originOnly(page.finalUrl) },
  message: error?.message ?? "the page could not be parsed",
});

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
export const parseAndExtract = (
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

/** What reading one page came to. */
export type PageOutcome =
  | {
      readonly _tag: "Failed";
      readonly failure: ReadFailure;
      readonly message: string;
      readonly stepId: string;
    }
  /** The page landed on a page already read: pagination has looped (`why`), the page is not kept. */
  | { readonly _tag: "Looped"; readonly why: string }
  | {
      readonly _tag: "Read";
      readonly page: FetchedPage;
      readonly sha256: string;
      readonly size: number;
      readonly extracted: PageExtraction;
      readonly stored: StoredExtraction;
      readonly reused: Omit<PageReuse, "url"> | null;
      /** The body is the kept read's: the store already holds it (decision 0042). */
      readonly bodyStored: boolean;
    };

export interface PageToRead {
  readonly url: string;
  readonly source: Source;
  readonly columns: ReadonlyArray<DatasetColumn>;
  /** The kept read this page may reuse (same recipe), or null. */
  readonly kept: AcceptedRead | null;
  /** How many records the run may still take (maxItems less those read). */
  readonly remaining: number;
  /** Pages read before this one: 0 for the start page. */
  readonly pageNumber: number;
  /**
   * Why the page, as it landed, is one already read (its identity or its bytes), or null: asked
   * before it is parsed, so a looped page costs no parse.
   */
  readonly alreadyRead: (finalUrl: string, sha256: string) => string | null;
}

/** Reads one page, recording its read step (and its extract step when it was parsed). */
export const readPage = Effect.fn("run.readPage")(function* (
  { url, source, columns, kept, remaining, pageNumber, alreadyRead }: PageToRead,
  trace: TraceRecorder,
) {
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
  if (fetched !== null) {
    const why = alreadyRead(fetched.page.finalUrl, sha256);
    if (why !== null) return { _tag: "Looped", why } satisfies PageOutcome;
  }
  const reuse = fetched !== null && kept !== null && (keptBytes || sameBytes(kept, fetched.page, sha256)) ? kept : null;
  // A page that fetched but cannot be parsed (over the document limits) fails its read alike; its
  // read step then spans the parse too. A page that parses has its parse in its extract step.
  const parsed =
    fetched === null || reuse !== null
      ? null
      : yield* Effect.either(parseAndExtract(fetched.page, source, columns, remaining + 1, pageNumber));
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
    return { _tag: "Failed", failure: error.failure, message: error.message, stepId } satisfies PageOutcome;
  }
  const { page } = fetched;
  let extracted: PageExtraction;
  let stored: StoredExtraction;
  if (reuse !== null) {
    extracted = fromStoredExtraction(reuse.extraction!, page.finalUrl);
    stored = reuse.extraction!;
  } else {
    const { right } = parsed as Extract<typeof parsed, { _tag: "Right" }>;
    extracted = right.extracted;
    stored = toStoredExtraction(extracted, right.next);
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
  return {
    _tag: "Read",
    page,
    sha256,
    size,
    extracted,
    stored,
    reused,
    bodyStored: reuse !== null && reuse.body !== null,
  } satisfies PageOutcome;
});
