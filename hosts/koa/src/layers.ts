import {
  AllowedTargets,
  type Credits,
  CursorSecret,
  type DocumentParser,
  Fetcher,
  type FetcherService,
  fetcherByRender,
  OwnerLimits,
  DriftPolicy,
  RetentionLive,
  RetentionPolicy,
  PreviewLimits,
  PreviewWindow,
  type RunQueue,
  RoutinesLive,
  RunWorkerLive,
  ReadFailed,
  parseAllowList,
  Storage,
  Metrics,
  meteredFetcher,
  meteredStorage,
} from "@gleaner/core";
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as Runtime from "effect/Runtime";
import type * as Scope from "effect/Scope";
import * as TestClock from "effect/TestClock";
import * as TestContext from "effect/TestContext";
import type { HostConfig } from "./config.js";
import type { ConfigurationError } from "./config-errors.js";
import { cursorSecretFor } from "./cursor-secret.js";
import { importPeer } from "./optional-peers.js";
import { parserPlugins, pluginLayer, queuePlugins, select, storePlugins } from "./plugins.js";
import { type ResearchOverrides, researchLayer } from "./research-plugins.js";
import type { PromMetrics } from "./metrics/prom.js";
import { metricsServerLayer } from "./metrics/server.js";
import { webhookWorker } from "./webhooks/layer.js";

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
  readonly contextTokens?: ResearchOverrides["contextTokens"];
}

const fetcherOf = (layer: Layer.Layer<Fetcher, unknown>, scope: Scope.Scope) =>
  Effect.map(Layer.buildWithScope(layer, scope), (context) => Context.get(context, Fetcher));

/**
 * A Fetcher whose adapter is imported and built by its first read, in the host's scope: a host
 * whose sources never render never loads playwright-core, let alone starts Chromium. An adapter
 * whose package is not installed fails each read with the message naming it.
 */
const onFirstRead = (load: Effect.Effect<Layer.Layer<Fetcher, unknown>, ConfigurationError>) =>
  Effect.gen(function* () {
    const scope = yield* Effect.scope;
    const built = yield* Effect.cached(
      load.pipe(
        Effect.mapError(
          ({ message }) =>
            new ReadFailed({ failure: { reason: "unknown", status: null, finalUrl: null }, message, attempts: 0 }),
        ),
        Effect.flatMap((layer) => fetcherOf(layer, scope).pipe(Effect.orDie)),
      ),
    );
    return { read: (request) => Effect.flatMap(built, (fetcher) => fetcher.read(request)) } satisfies FetcherService;
  });

/**
 * One Fetcher routing by `render`: static reads on undici (built at start, so a bad
 * GLEANER_PROXY_URLS or GLEANER_ALLOW_PRIVATE_TARGETS stops the start), browser reads in Chromium.
 */
const fetcherLayer = (config: HostConfig): Layer.Layer<Fetcher, unknown> => {
  const reading = { allowPrivateTargets: config.allowPrivateTargets, proxyUrls: config.proxyUrls };
  return Layer.scoped(
    Fetcher,
    Effect.gen(function* () {
      const { HttpFetcherLive } = yield* Effect.promise(() => import("@gleaner/http"));
      const staticFetcher = yield* fetcherOf(HttpFetcherLive(reading), yield* Effect.scope);
      const browserFetcher = yield* onFirstRead(
        Effect.map(
          importPeer("render: browser", "@gleaner/playwright", () => import("@gleaner/playwright")),
          (playwright) =>
            playwright.PlaywrightFetcherLive({
              ...reading,
              browserPath: config.browserPath,
              readTimeoutMs: config.browserReadTimeoutMs,
              maxRendererMemoryBytes: config.browserMemoryMb * 1024 * 1024,
            }),
        ),
      );
      return fetcherByRender(staticFetcher, browserFetcher);
    }),
  );
};

/** The configured store alone (the CLI's administrative commands need nothing else). */
export const storeLayer = (config: HostConfig): Layer.Layer<Storage | Credits, unknown> =>
  pluginLayer(select(storePlugins, config.storage, "GLEANER_STORAGE"), config.variables);

/** Cursors signed with the deployment's key; with none, core's per-process key stays. */
const cursorSecretLayer = (config: HostConfig): Layer.Layer<never> => {
  const secret = cursorSecretFor(config);
  return secret === null ? Layer.empty : Layer.succeed(CursorSecret, secret);
};

/** The drift rule as configured (GLEANER_DRIFT*); core's defaults when the config has none. */
const driftLayer = ({ drift }: HostConfig) =>
  drift === undefined
    ? Layer.empty
    : Layer.succeed(DriftPolicy, {
        enabled: drift.enabled,
        thresholds: {
          minPresentRows: drift.minRows,
          minRecordShare: drift.minRecordsPercent / 100,
          goneShare: drift.gonePercent / 100,
          fillDrop: drift.fillDropPoints / 100,
        },
      });

/** The store with every run's end told to `metrics` (core's meteredStorage), Credits as it was. */
const meteredStoreLayer = <E>(store: Layer.Layer<Storage | Credits, E>, metrics: PromMetrics) =>
  Layer.map(store, (context) => Context.add(context, Storage, meteredStorage(Context.get(context, Storage), metrics)));

/** The fetcher with every page read told to `metrics`. */
const meteredFetcherLayer = <E>(fetcher: Layer.Layer<Fetcher, E>, metrics: PromMetrics) =>
  Layer.map(fetcher, (context) =>
    Context.add(context, Fetcher, meteredFetcher(Context.get(context, Fetcher), metrics)),
  );

/**
 * The whole service graph for one process: the configured adapters and, when `worker` is on,
 * the run worker consuming the queue with GLEANER_WORKER_CONCURRENCY runs at a time.
 */
export const serviceLayer = (
  config: HostConfig,
  overrides: LayerOverrides = {},
  worker = true,
  metrics: PromMetrics | null = null,
): Layer.Layer<GleanerServices, unknown> => {
  const store = overrides.store ?? storeLayer(config);
  const fetcher = overrides.fetcher ?? fetcherLayer(config);
  const adapters = Layer.mergeAll(
    metrics ? meteredStoreLayer(store, metrics) : store,
    overrides.queue ?? pluginLayer(select(queuePlugins, config.queue, "GLEANER_QUEUE"), config.variables),
    metrics ? meteredFetcherLayer(fetcher, metrics) : fetcher,
    overrides.parser ?? pluginLayer(select(parserPlugins, config.parser, "GLEANER_PARSER"), config.variables),
    // The rules that refuse private source addresses at creation honour the same allow list as the fetchers.
    Layer.sync(AllowedTargets, () => parseAllowList(config.allowPrivateTargets)),
    researchLayer(overrides),
    Layer.succeed(OwnerLimits, config.ownerLimits),
    Layer.sync(PreviewLimits, () => new PreviewWindow({ perMinute: config.ownerLimits.maxPreviewsPerMinute ?? 30 })),
    driftLayer(config),
    Layer.succeed(RetentionPolicy, { days: config.retentionDays ?? 30 }),
    cursorSecretLayer(config),
    metrics ? Layer.succeed(Metrics, metrics) : Layer.empty,
    metrics && config.metrics ? metricsServerLayer(metrics, config.metrics.host, config.metrics.port) : Layer.empty,
  );
  const withQueueGauge = metrics
    ? Layer.provideMerge(
        Layer.effectDiscard(
          Effect.gen(function* () {
            const storage = yield* Storage;
            const runtime = yield* Effect.runtime<never>();
            const read = storage.queuedRuns;
            if (read) metrics.queue = () => Runtime.runPromise(runtime)(read());
            if (storage.connectionPool) metrics.watchPool(storage.connectionPool);
          }),
        ),
        adapters,
      )
    : adapters;
  return worker
    ? Layer.provideMerge(
        Layer.mergeAll(
          RunWorkerLive(config.workerConcurrency, { runDeadlineMs: config.runDeadlineMs }),
          RoutinesLive,
          webhookWorker(config, metrics),
          RetentionLive(),
        ),
        withQueueGauge,
      )
    : withQueueGauge;
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
