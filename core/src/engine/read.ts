import * as Clock from "effect/Clock";
import * as Effect from "effect/Effect";
import { DocumentParser, type ParseFailed } from "../ports/document-parser.js";
import { originOnly } from "../reading/origin.js";
import { Fetcher, type FetchedPage, type ReadFailed } from "../ports/fetcher.js";
import type { DatasetColumn } from "../schema/column.js";
import type { ObservationEntry } from "../schema/row.js";
import type { ReadFailure } from "../schema/run.js";
import type { Source } from "../schema/source.js";
import { isoAt } from "../time.js";
import { sha256Hex } from "../digest.js";
import type { Coverage } from "./checks.js";
import { type ExtractedRecord, extractPage } from "./extract.js";
import type { TraceRecorder } from "./trace.js";

/** A page that was read and extracted. */
export interface ReadPage {
  readonly page: FetchedPage;
  /** Hex SHA-256 of the body: the observation's content digest and the artifact's hash. */
  readonly sha256: string;
  readonly entries: ReadonlyArray<ObservationEntry>;
  readonly records: ReadonlyArray<ExtractedRecord>;
}

export interface ReadOutcome {
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
}

const cap = (n: number) => Math.min(25, n);

/** The read failure of a fetched page the parser refused (`limit_exceeded` or `invalid_content`). */
const unparsable = (page: FetchedPage, error: ParseFailed | null): Pick<ReadFailed, "failure" | "message"> => ({
  failure: { reason: error?.reason ?? "invalid_content", status: page.status, finalUrl: originOnly(page.finalUrl) },
  message: error?.message ?? "the page could not be parsed",
});

/** The next page's URL, or null when pagination ends on this page. */
const nextUrl = (
  source: Source,
  document: { root: { select: (s: string) => ReadonlyArray<{ attribute: (n: string) => string | null }> } },
  resolve: (ref: string) => string | null,
  pageNumber: number,
): string | null => {
  const pagination = source.pagination;
  switch (pagination.kind) {
    case "none":
      return null;
    case "next-link": {
      const href = document.root.select(pagination.selector)[0]?.attribute("href");
      return href ? resolve(href) : null;
    }
    case "url-pattern":
      if (document.root.select(pagination.endSelector).length > 0) return null;
      return pagination.pattern.replace("{page}", String(pagination.startPage + pageNumber + 1));
  }
};

/**
 * Reads the source's pages in pagination order and extracts each one as it arrives. Stops at the
 * natural end, at the first failed read, at a link back to a visited page, or at maxPages/maxItems
 * (which leaves coverage incomplete when more remains).
 */
export const readSource = Effect.fn("run.read")(function* (
  source: Source,
  columns: ReadonlyArray<DatasetColumn>,
  trace: TraceRecorder,
) {
  const fetcher = yield* Fetcher;
  const parser = yield* DocumentParser;
  const pages: ReadPage[] = [];
  const records: ExtractedRecord[] = [];
  const failures: Array<ReadOutcome["failures"][number]> = [];
  const visited = new Set<string>();
  let url: string | null = source.url;
  let coverage: Coverage = { complete: true };

  while (url !== null) {
    if (pages.length >= source.maxPages) {
      coverage = {
        complete: false,
        reason: `Stopped after maxPages (${source.maxPages}) pages while more remain: ${url} was not read.`,
      };
      break;
    }
    visited.add(url);
    const started = yield* Clock.currentTimeMillis;
    // Shown as a `running` read step (with its URL) to anyone watching the trace until it ends.
    const reading = yield* trace.begin("read", { sourceUrl: url.slice(0, 2048) });
    const result = yield* Effect.either(
      fetcher.read({
        url,
        render: source.render,
        proxy: source.proxy,
        ignoreRobots: source.ignoreRobots,
        waitForSelector: source.itemSelector,
        // One attempt's reads share a browser session (context, guard proxy, page) when rendering.
        runId: trace.attemptId,
      }),
    );
    const finished = yield* Clock.currentTimeMillis;
    trace.end(reading);
    const timing = {
      startedAt: isoAt(started),
      durationMs: Math.max(0, Math.round(finished - started)),
    };
    // A page that fetched but cannot be parsed (over the document limits) fails its read alike; its
    // read step then spans the parse too. A page that parses has its parse in its extract step.
    const parsed =
      result._tag === "Left" ? null : yield* Effect.either(parser.parse(result.right.body, result.right.finalUrl));
    const parsedAt = yield* Clock.currentTimeMillis;
    if (result._tag === "Left" || parsed?._tag === "Left") {
      const error: Pick<ReadFailed, "failure" | "message"> =
        result._tag === "Left" ? result.left : unparsable(result.right, parsed?._tag === "Left" ? parsed.left : null);
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
    const page = result.right;
    visited.add(page.finalUrl);
    const sha256 = yield* sha256Hex(page.body);
    if (parsed?._tag !== "Right") break; // narrowed above: a failed parse already ended the read
    const document = parsed.right;
    try {
      const remaining = source.maxItems - records.length;
      const extracted = extractPage(document, page.finalUrl, source, columns, remaining + 1);
      // The extract step is the page's parse and its extraction: both are the engine's own CPU time.
      trace.add({
        phase: "extract",
        status: "succeeded",
        sourceUrl: page.finalUrl.slice(0, 2048),
        startedAt: isoAt(finished),
        durationMs: Math.max(0, Math.round((yield* Clock.currentTimeMillis) - finished)),
      });
      const found = extracted.records.length;
      yield* Effect.logDebug("page read").pipe(
        Effect.annotateLogs({ url: page.finalUrl, status: page.status, records: found, attempts: page.attempts }),
      );
      trace.add({
        phase: "read",
        status: "succeeded",
        sourceUrl: page.finalUrl.slice(0, 2048),
        candidateRows: cap(found),
        matchedRows: cap(extracted.records.filter((r) => r.rowKey !== null).length),
        ...timing,
      });
      if (found > remaining) {
        pages.push({
          sha256,
          page,
          entries: extracted.entries.slice(0, remaining),
          records: extracted.records.slice(0, remaining),
        });
        records.push(...extracted.records.slice(0, remaining));
        coverage = {
          complete: false,
          reason: `More than maxItems (${source.maxItems}) records; ${page.finalUrl} holds more.`,
        };
        break;
      }
      pages.push({ page, sha256, ...extracted });
      records.push(...extracted.records);
      const next: string | null = nextUrl(source, document, document.resolveUrl, pages.length - 1);
      url = next !== null && !visited.has(next) ? next : null;
    } finally {
      document.dispose();
    }
  }
  return { pages, records, failures, coverage } satisfies ReadOutcome;
});
