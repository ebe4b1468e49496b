import {
  AllowedTargets,
  type Credits,
  type DocumentParser,
  Fetcher,
  fetcherByRender,
  OwnerLimits,
  type RunQueue,
  RoutinesLive,
  RunWorkerLive,
  parseAllowList,
  type Storage,
} from "@gleaner/core";
import { HttpFetcherLive } from "@gleaner/http";
import { PlaywrightFetcherLive } from "@gleaner/playwright";
import { Context, Effect, Layer, TestClock, TestContext } from "effect";
import type { HostConfig } from "./config.js";
import { parserPlugins, queuePlugins, select, storePlugins } from "./plugins.js";
import { type ResearchOverrides, researchLayer } from "./research-plugins.js";

export type GleanerServices = Storage | Credits | RunQueue | Fetcher | DocumentParser;

/** Adapters to use instead of the ones the configuration selects (the conformance suite does). */
export interface LayerOverrides {
  readonly store?: Layer.Layer<Storage | Credits, unknown>;
  readonly queue?: Layer.Layer<RunQueue, unknown>;
  readonly fetcher?: Layer.Layer<Fetcher, unknown>;
  readonly parser?: Layer.Layer<DocumentParser, unknown>;
  /** Research runs' LanguageModel and SearchEngine (otherwise from GLEANER_MODEL_URL / GLEANER_SEARCH_URL). */
  readonly model?: ResearchOverrides["model"];
  readonly search?: ResearchOverrides["search"];
}

/**
 * One Fetcher routing by `render`: static reads on undici, browser reads in Chromium. Chromium is only
 * launched by the first browser read, so a host whose sources never render never starts it.
 */
const fetcherLayer = (config: HostConfig): Layer.Layer<Fetcher, unknown> => {
  const reading = { allowPrivateTargets: config.allowPrivateTargets, proxyUrls: config.proxyUrls };
  const built = (layer: Layer.Layer<Fetcher, unknown>) =>
    Effect.map(Layer.build(layer), (context) => Context.get(context, Fetcher));
  return Layer.scoped(
    Fetcher,
    Effect.gen(function* () {
      const staticFetcher = yield* built(HttpFetcherLive(reading));
      const browserFetcher = yield* built(PlaywrightFetcherLive({ ...reading, browserPath: config.browserPath }));
      return fetcherByRender(staticFetcher, browserFetcher);
    }),
  );
};

/**
 * The whole service graph for one process: the configured adapters and, when `worker` is on,
 * the run worker consuming the queue with GLEANER_WORKER_CONCURRENCY runs at a time.
 */
export const serviceLayer = (
  config: HostConfig,
  overrides: LayerOverrides = {},
  worker = true,
): Layer.Layer<GleanerServices, unknown> => {
  const adapters = Layer.mergeAll(
    overrides.store ?? select(storePlugins, config.storage, "GLEANER_STORAGE").layer(config),
    overrides.queue ?? select(queuePlugins, config.queue, "GLEANER_QUEUE").layer(config),
    overrides.fetcher ?? fetcherLayer(config),
    overrides.parser ?? select(parserPlugins, config.parser, "GLEANER_PARSER").layer(config),
    // The rules that refuse private source addresses at creation honour the same allow list as the fetchers.
    Layer.sync(AllowedTargets, () => parseAllowList(config.allowPrivateTargets)),
    researchLayer(overrides),
    Layer.succeed(OwnerLimits, config.ownerLimits),
  );
  return worker
    ? Layer.provideMerge(
        Layer.mergeAll(RunWorkerLive(config.workerConcurrency, { runDeadlineMs: config.runDeadlineMs }), RoutinesLive),
        adapters,
      )
    : adapters;
};

/**
 * Runs the whole service graph on Effect's TestClock, starting at the current wall time: schedules
 * then fire only when a test advances the clock. For tests; never used by `gleaner serve`.
 */
export const onVirtualClock = (layer: Layer.Layer<GleanerServices, unknown>): Layer.Layer<GleanerServices, unknown> =>
  Layer.provideMerge(
    layer,
    Layer.effectDiscard(TestClock.setTime(Date.now())).pipe(Layer.provideMerge(TestContext.TestContext)),
  ) as Layer.Layer<GleanerServices, unknown>;
