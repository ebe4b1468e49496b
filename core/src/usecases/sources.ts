import * as Effect from "effect/Effect";
import * as Schema from "effect/Schema";
import { ValidationError } from "../errors.js";
import { DocumentParser, type ParsedDocument } from "../ports/document-parser.js";
import { type FetchedPage, Fetcher, type FetchRequest, type ReadFailed } from "../ports/fetcher.js";
import { AllowedTargets } from "../reading/allowed-targets.js";
import { originOnly } from "../reading/origin.js";
import { checkUrl } from "../reading/target-policy.js";
import { createDatasetProblems, sourceTargetProblems } from "../rules/dataset-rules.js";
import { defaultColumns, previewColumns, previewSource } from "../engine/preview.js";
import type { ColumnInput } from "../schema/column.js";
import { newId, type OwnerId } from "../schema/ids.js";
import { Source } from "../schema/source.js";
import type { PreviewRequest, Preview, SuggestRequest, Suggestion, SuggestResponse } from "../schema/sources.js";
import { suggestCandidates } from "../suggest/suggest.js";
import { takePreview } from "./preview-limits.js";

/** The rules of POST /v1/datasets, on a source and its columns (a preview's name is never at fault). */
const sourceProblems = (source: Source, columns: ReadonlyArray<ColumnInput>, allow: AllowedTargets["Type"]) => {
  const request = { name: "preview", columns, source };
  return [...createDatasetProblems(request), ...sourceTargetProblems(request, allow)];
};

const invalid = (details: ValidationError["details"]) =>
  new ValidationError({ message: `The source is invalid: ${details[0]?.path} ${details[0]?.message}.`, details });

/**
 * Reads each URL once per request: a suggestion's previews all start on the page it was made from.
 * The answer (or the failure) is shared; nothing outlives the request.
 */
const readingOnce = (fetcher: Fetcher["Type"]): Fetcher["Type"] => {
  const answers = new Map<string, Effect.Effect<FetchedPage, ReadFailed>>();
  return {
    read: (request: FetchRequest) => {
      const key = `${request.render} ${request.url}`;
      let answer = answers.get(key);
      if (answer === undefined) {
        answer = Effect.runSync(Effect.cached(fetcher.read(request)));
        answers.set(key, answer);
      }
      return answer;
    },
  };
};

/**
 * Parses each page once per request: a suggestion's previews all read the page it was made from, and
 * a large page takes a few hundred milliseconds to parse. The documents live until `disposeAll`.
 */
const parsingOnce = (parser: DocumentParser["Type"]) => {
  const parsed = new Map<string, { html: string; document: ParsedDocument }>();
  const service: DocumentParser["Type"] = {
    parse: (html, url) => {
      const known = parsed.get(url);
      if (known?.html === html) return Effect.succeed({ ...known.document, dispose: () => {} });
      return parser.parse(html, url).pipe(
        Effect.tap((document) => {
          known?.document.dispose();
          parsed.set(url, { html, document });
        }),
        Effect.map((document) => ({ ...document, dispose: () => {} })),
      );
    },
  };
  const disposeAll = Effect.sync(() => {
    for (const { document } of parsed.values()) document.dispose();
    parsed.clear();
  });
  return { service, disposeAll };
};

/**
 * Lets the host's other requests run (a timer, not a microtask): each stage of a suggestion on a large
 * page holds the thread for up to a few hundred milliseconds, and the stages need not be one block.
 */
const letOthersRun = Effect.async<void>((resume) => {
  const timer = setTimeout(() => resume(Effect.void), 0);
  return Effect.sync(() => clearTimeout(timer));
});

/** POST /v1/sources/preview: what a run of the source would get from its first pages, written nowhere. */
export const previewSourceRequest = (ownerId: OwnerId, request: PreviewRequest) =>
  Effect.gen(function* () {
    const columns = request.columns ?? defaultColumns(request.source);
    const problems = sourceProblems(request.source, columns, yield* AllowedTargets);
    if (problems.length > 0) return yield* Effect.fail(invalid(problems));
    yield* takePreview(ownerId);
    const preview = yield* previewSource(request.source, previewColumns(columns), request.pages);
    return { preview };
  });

/** Checks pass that say the records are right (coverage and missing fields say the pages changed). */
const recordsHold = (preview: Preview) =>
  preview.checks.every((c) => c.passed || !["identity", "extraction", "minimum-items"].includes(c.checkId));

/**
 * POST /v1/sources/suggest: reads the page once, finds its repeated records and offers up to five
 * sources for them, each with the preview POST /v1/sources/preview gives it. None when the page
 * cannot be read or repeats nothing.
 */
export const suggestSources = (ownerId: OwnerId, request: SuggestRequest) =>
  Effect.gen(function* () {
    const verdict = checkUrl(request.url, yield* AllowedTargets);
    if (!verdict.allowed) {
      return yield* Effect.fail(invalid([{ path: "/url", message: `is not a public address: ${verdict.why}` }]));
    }
    yield* takePreview(ownerId);
    const fetcher = readingOnce(yield* Fetcher);
    const parser = parsingOnce(yield* DocumentParser);
    return yield* suggestFromPage(request, fetcher, parser.service).pipe(Effect.ensuring(parser.disposeAll));
  });

const suggestFromPage = (request: SuggestRequest, fetcher: Fetcher["Type"], parser: DocumentParser["Type"]) =>
  Effect.gen(function* () {
    const render = request.render ?? "static";
    // The request's reads share a browser session (as a run's do), never another request's.
    const session = newId();
    const read = yield* Effect.either(
      fetcher.read({ url: request.url, render, proxy: "auto", ignoreRobots: false, runId: session }),
    );
    if (read._tag === "Left") {
      const page = { url: request.url, status: "failed" as const, readFailure: read.left.failure };
      return { page, suggestions: [] } satisfies SuggestResponse;
    }
    const fetched = read.right;
    const parsed = yield* Effect.either(parser.parse(fetched.body, fetched.finalUrl));
    if (parsed._tag === "Left") {
      const readFailure = {
        reason: parsed.left.reason,
        status: fetched.status,
        finalUrl: originOnly(fetched.finalUrl),
      };
      return { page: { url: fetched.finalUrl, status: "failed" as const, readFailure }, suggestions: [] };
    }
    const document = parsed.right;
    yield* letOthersRun;
    const candidates = suggestCandidates(document.outline(), {
      pageUrl: fetched.finalUrl,
      baseUrl: document.baseUrl,
      render,
      ...(request.columns ? { columns: request.columns } : {}),
    });
    const allow = yield* AllowedTargets;
    const suggestions: Suggestion[] = [];
    for (const candidate of candidates) {
      const source = Schema.decodeUnknownOption(Source)(candidate.source);
      if (source._tag === "None" || sourceProblems(source.value, candidate.columns, allow).length > 0) continue;
      yield* letOthersRun;
      const previewOf = (decoded: Source) =>
        previewSource(decoded, previewColumns(candidate.columns), 2, session).pipe(
          Effect.provideService(Fetcher, fetcher),
          Effect.provideService(DocumentParser, parser),
        );
      let preview = yield* previewOf(source.value);
      let body = { source: candidate.source, why: candidate.why };
      // A next-page selector that leads back (to the previous page's link, found first on page 2) would
      // end every run early and call it complete: such a suggestion reads its one page instead.
      if (preview.warnings.some((w) => w.code === "pagination_loop")) {
        const onePage = { ...candidate.source, pagination: { kind: "none" } };
        const decoded = Schema.decodeUnknownSync(Source)(onePage);
        preview = yield* previewOf(decoded);
        body = {
          source: onePage,
          why: `${candidate.why.replace(/\.$/, "")}; the next-page link could not be told apart from the previous-page link, so one page is read.`,
        };
      }
      suggestions.push({
        name: candidate.name,
        ...(request.question !== undefined ? { question: request.question } : {}),
        columns: candidate.columns,
        source: body.source as unknown as Source,
        preview,
        why: body.why,
      });
    }
    // Suggestions whose records hold up in their preview come first; otherwise the page's order stands.
    const ordered = [
      ...suggestions.filter((s) => recordsHold(s.preview)),
      ...suggestions.filter((s) => !recordsHold(s.preview)),
    ];
    return { page: { url: fetched.finalUrl, status: "read" as const, readFailure: null }, suggestions: ordered };
  });
