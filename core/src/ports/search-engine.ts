import * as Context from "effect/Context";
import type * as Effect from "effect/Effect";
import * as Schema from "effect/Schema";

export interface SearchResult {
  readonly url: string;
  readonly title: string;
  readonly snippet: string;
}

/** The engine could not answer (unreachable, timed out, or an unusable answer). */
export class SearchFailed extends Schema.TaggedError<SearchFailed>()("SearchFailed", {
  message: Schema.String,
}) {}

export interface SearchEngineService {
  /** Names the engine in the pinned recipe (e.g. "searxng"). Never a secret. */
  readonly name: string;
  readonly search: (query: string, limit: number) => Effect.Effect<ReadonlyArray<SearchResult>, SearchFailed>;
}

/** Web search for research runs. Adapter: @gleaner/searxng. */
export class SearchEngine extends Context.Tag("@gleaner/core/SearchEngine")<SearchEngine, SearchEngineService>() {}
