import {
  boundedFetch,
  isAnswerTooLarge,
  SEARCH_ANSWER_MAX_BYTES,
  SearchEngine,
  type SearchEngineService,
  SearchFailed,
  type SearchResult,
} from "@gleaner/core";
import * as Duration from "effect/Duration";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as Schema from "effect/Schema";

export interface SearxngConfig {
  /** The SearXNG instance, e.g. http://127.0.0.1:8888 (its `search.formats` must include json). */
  readonly url: string;
  /** One query's time limit (default 15 s). */
  readonly timeoutMs?: number;
}

/** The part of SearXNG's `format=json` answer Gleaner reads; other fields are ignored. */
const SearxngAnswer = Schema.Struct({
  results: Schema.Array(
    Schema.Struct({
      url: Schema.String,
      title: Schema.optionalWith(Schema.String, { default: () => "" }),
      content: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => "" }),
    }),
  ),
});

/**
 * SearchEngine on SearXNG's JSON API (`GET /search?q=…&format=json`). The instance is operator
 * configuration, so it is not subject to the SSRF guard; every result URL still is, when read.
 */
export const makeSearxng = (config: SearxngConfig): SearchEngineService => {
  const fetchBounded = boundedFetch(SEARCH_ANSWER_MAX_BYTES);
  const tooLarge = new SearchFailed({
    message: `The search engine's answer is larger than ${SEARCH_ANSWER_MAX_BYTES} bytes.`,
  });
  const endpoint = new URL("search", config.url.endsWith("/") ? config.url : `${config.url}/`);
  return {
    name: "searxng",
    search: (query, limit) =>
      Effect.gen(function* () {
        const url = new URL(endpoint);
        url.searchParams.set("q", query);
        url.searchParams.set("format", "json");
        const response = yield* Effect.tryPromise({
          try: (signal) => fetchBounded(url, { signal, headers: { accept: "application/json" } }),
          catch: (error) =>
            isAnswerTooLarge(error)
              ? tooLarge
              : new SearchFailed({ message: "The search engine could not be reached." }),
        });
        if (!response.ok) {
          return yield* new SearchFailed({
            message:
              response.status === 403
                ? "The search engine answered 403: enable the json format in SearXNG's settings (search.formats)."
                : `The search engine answered HTTP ${response.status}.`,
          });
        }
        const body = yield* Effect.tryPromise({
          try: () => response.json(),
          catch: (error) =>
            isAnswerTooLarge(error)
              ? tooLarge
              : new SearchFailed({ message: "The search engine's answer is not JSON." }),
        });
        const answer = yield* Schema.decodeUnknown(SearxngAnswer)(body).pipe(
          Effect.mapError(() => new SearchFailed({ message: "The search engine's answer has no results list." })),
        );
        return answer.results
          .slice(0, limit)
          .map((r): SearchResult => ({ url: r.url, title: r.title, snippet: r.content ?? "" }));
      }).pipe(
        Effect.timeoutFail({
          duration: Duration.millis(config.timeoutMs ?? 15_000),
          onTimeout: () => new SearchFailed({ message: "The search engine did not answer in time." }),
        }),
        Effect.withSpan("Searxng.search"),
      ),
  };
};

export const SearxngLive = (config: SearxngConfig) => Layer.sync(SearchEngine, () => makeSearxng(config));
