import { type LanguageModel, ModelBudget, type SearchEngine } from "@gleaner/core";
import { wholeNumberIn } from "./config-errors.js";
import { importPeer } from "./optional-peers.js";
import * as Config from "effect/Config";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as Option from "effect/Option";

/**
 * Research runs' adapters, chosen from the environment (docs/decisions/0014-research-runs.md):
 * GLEANER_MODEL_URL (an OpenAI-compatible base URL; unset = research runs unavailable),
 * GLEANER_MODEL_API_KEY (secret, redacted), GLEANER_MODEL_NAME (required with the URL) and
 * GLEANER_SEARCH_URL (a SearXNG instance; unset = site research over the dataset's declared pages).
 * Endpoints are operator configuration: they are not subject to the SSRF guard. Each adapter is
 * imported only when configured, so a host without research never loads jsdom or the model client.
 */
export const researchEnv = Config.all({
  modelUrl: Config.option(Config.nonEmptyString("GLEANER_MODEL_URL")),
  apiKey: Config.option(Config.redacted("GLEANER_MODEL_API_KEY")),
  searchUrl: Config.option(Config.nonEmptyString("GLEANER_SEARCH_URL")),
  /** The model's context window in tokens: a page longer than one request carries is read in chunks. */
  contextTokens: Config.option(wholeNumberIn("GLEANER_MODEL_CONTEXT_TOKENS", 2_048, 10_000_000)),
});

/** The adapters' packages, optional peers of @gleaner/koa, each named by the variable that selects it. */
const openai = () => importPeer("GLEANER_MODEL_URL", "@gleaner/openai", () => import("@gleaner/openai"));
const searxng = () => importPeer("GLEANER_SEARCH_URL", "@gleaner/searxng", () => import("@gleaner/searxng"));
/** Page text for a model comes from jsdom, whichever chose the model: the variable, or an embedder's layer. */
const jsdom = (selectedBy: string) => importPeer(selectedBy, "@gleaner/jsdom", () => import("@gleaner/jsdom"));

export interface ResearchOverrides {
  readonly model?: Layer.Layer<LanguageModel, unknown>;
  readonly search?: Layer.Layer<SearchEngine, unknown>;
  /** The model's context window in tokens, instead of GLEANER_MODEL_CONTEXT_TOKENS. */
  readonly contextTokens?: number;
}

/**
 * The LanguageModel, SearchEngine and main-text reader when configured; an empty layer otherwise.
 * The rest of the graph finds them with `Effect.serviceOption`, so the output type says nothing.
 */
export const researchLayer = (overrides: ResearchOverrides = {}): Layer.Layer<never, unknown> =>
  Layer.unwrapEffect(
    Effect.gen(function* () {
      const env = yield* researchEnv;
      const model =
        overrides.model ??
        (Option.isSome(env.modelUrl)
          ? (yield* openai()).OpenAiModelLive({
              url: env.modelUrl.value,
              apiKey: Option.getOrNull(env.apiKey),
              model: yield* Config.nonEmptyString("GLEANER_MODEL_NAME"),
            })
          : null);
      const search =
        overrides.search ??
        (Option.isSome(env.searchUrl) ? (yield* searxng()).SearxngLive({ url: env.searchUrl.value }) : null);
      const mainText = model
        ? (yield* jsdom(overrides.model ? "a research model" : "GLEANER_MODEL_URL")).JsdomMainTextLive
        : null;
      const layers: Array<Layer.Layer<never, unknown>> = [];
      if (model && mainText) layers.push(model, mainText);
      const contextTokens = overrides.contextTokens ?? Option.getOrUndefined(env.contextTokens);
      if (contextTokens !== undefined) layers.push(Layer.succeed(ModelBudget, { contextTokens }));
      if (search) layers.push(search);
      return layers.length === 0 ? Layer.empty : Layer.mergeAll(...(layers as [Layer.Layer<never, unknown>]));
    }),
  );
