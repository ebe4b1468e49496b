import * as Clock from "effect/Clock";
import * as Effect from "effect/Effect";
import { pageLanguage } from "./artifacts.js";
import { Fetcher } from "../../ports/fetcher.js";
import type { MainTextReaderService } from "../../ports/main-text.js";
import type { DatasetColumn } from "../../schema/column.js";
import type { Source } from "../../schema/source.js";
import { isoAt } from "../../time.js";
import type { Coverage } from "../checks.js";
import { sha256Hex } from "../../digest.js";
import { type ReadOutcome, readSource } from "../read.js";
import { TraceRecorder } from "../trace.js";
import { wellFormedText } from "../../reading/excerpt.js";
import { pageIdentity } from "../../rules/page-identity.js";

/** A page a research run read, as the model sees it. */
export interface ResearchPage {
  readonly url: string;
  readonly title: string | null;
  /** Main content only: scripts, navigation and boilerplate dropped. */
  readonly text: string;
  /** Hex SHA-256 of the page body as read: the observation's content digest. */
  readonly sha256: string;
  /** The page's language as it declares it, or null: grounding reads its numbers by it. */
  readonly lang: string | null;
}

export interface ResearchRead {
  readonly pages: ReadonlyArray<ResearchPage>;
  readonly failures: ReadOutcome["failures"];
  readonly coverage: Coverage;
}

const cleaned = (reader: MainTextReaderService, body: string, url: string, sha256: string) =>
  Effect.map(
    Effect.orElseSucceed(reader.read(body, url), () => ({ title: null, text: "", lang: null })),
    (main): ResearchPage => ({
      url,
      title: main.title === null ? null : wellFormedText(main.title),
      text: wellFormedText(main.text),
      sha256,
      lang: pageLanguage(main.lang),
    }),
  );

/**
 * Site research: the dataset's declared source pages in pagination order, read exactly as a
 * deterministic run reads them (robots, SSRF guard, proxy, maxPages). Item counting is left to
 * the entities, so the deterministic item limit does not cut pages here.
 */
export const readSite = Effect.fn("research.readSite")(function* (
  source: Source,
  columns: ReadonlyArray<DatasetColumn>,
  trace: TraceRecorder,
  reader: MainTextReaderService,
) {
  const scratch = new TraceRecorder(trace.attemptId);
  const read = yield* readSource({ ...source, maxItems: 1000 }, columns, scratch);
  for (const step of scratch.snapshot().steps.filter((s) => s.phase === "read")) {
    const { stepId: _s, attemptId: _a, candidateRows: _c, matchedRows: _m, ...kept } = step;
    trace.add(kept);
  }
  const pages = yield* Effect.forEach(read.pages, (p) => cleaned(reader, p.page.body, p.page.finalUrl, p.sha256));
  return { pages, failures: read.failures, coverage: read.coverage } satisfies ResearchRead;
});

/**
 * Search research: each candidate URL read once through the Fetcher (SSRF guard and robots.txt
 * always apply to search results). Search results are candidates, not a declared scope: one that
 * cannot be read, for whatever reason, is recorded as not read (trace, failures) and coverage stays
 * complete; the run goes on with the pages it could read (decision 0014). Only when every result was
 * refused is the run blocked (execute.ts).
 */
export const readResults = Effect.fn("research.readResults")(function* (
  urls: ReadonlyArray<string>,
  source: Source,
  trace: TraceRecorder,
  reader: MainTextReaderService,
) {
  const fetcher = yield* Fetcher;
  const pages: ResearchPage[] = [];
  const failures: Array<ReadOutcome["failures"][number]> = [];
  const seen = new Set<string>();
  const seenTexts = new Set<string>();
  for (const url of urls) {
    const started = yield* Clock.currentTimeMillis;
    const result = yield* Effect.either(
      fetcher.read({ url, render: source.render, proxy: source.proxy, ignoreRobots: false }),
    );
    const timing = {
      startedAt: isoAt(started),
      durationMs: Math.max(0, Math.round((yield* Clock.currentTimeMillis) - started)),
      sourceUrl: url.slice(0, 2048),
    };
    if (result._tag === "Left") {
      const stepId = trace.add({ phase: "read", status: "failed", readFailure: result.left.failure, ...timing });
      failures.push({ url, failure: result.left.failure, message: result.left.message, stepId });
      continue;
    }
    trace.add({ phase: "read", status: "succeeded", ...timing });
    const identity = pageIdentity(result.right.finalUrl);
    if (seen.has(identity)) continue; // two results redirecting to one page
    seen.add(identity);
    const sha256 = yield* sha256Hex(result.right.body);
    const page = yield* cleaned(reader, result.right.body, result.right.finalUrl, sha256);
    // One page under several URLs (a trailing slash, tracking parameters, its query in another order)
    // reads as the same text: it is one page, asked about, counted and charged once.
    const reads = `${page.lang}\n${page.text}`;
    if (seenTexts.has(reads)) continue;
    seenTexts.add(reads);
    pages.push(page);
  }
  const coverage: Coverage = { complete: true };
  return { pages, failures, coverage } satisfies ResearchRead;
});

/** Search result URLs as candidates: http(s) only, fragment dropped, each once, at most `limit`. */
export const candidateUrls = (results: ReadonlyArray<{ readonly url: string }>, limit: number): string[] => {
  const urls: string[] = [];
  for (const { url } of results) {
    try {
      const { protocol } = new URL(url);
      if (protocol !== "http:" && protocol !== "https:") continue;
      const page = pageIdentity(url);
      if (!urls.includes(page)) urls.push(page);
    } catch {
      // not a URL: the engine gave us nothing to read
    }
  }
  return urls.slice(0, limit);
};
