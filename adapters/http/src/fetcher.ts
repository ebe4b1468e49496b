import {
  Fetcher,
  type FetcherService,
  InvalidReadingConfig,
  originOnly,
  planRoutes,
  ReadFailed,
  retryDelayMs,
  RobotsCache,
  type Route,
} from "@gleaner/core";
import { Clock, Duration, Effect, Layer } from "effect";
import { Agent, type Dispatcher, ProxyAgent } from "undici";
import { type HttpFetcherConfig, type ResolvedConfig, resolveConfig } from "./config.js";
import { type AttemptOutcome, readOnce, shouldSwitchRoute } from "./page-reader.js";
import { RobotsGate } from "./robots-gate.js";
import { guardedConnector, resolveSafeAddress } from "./target-guard.js";
import { exchange } from "./transport.js";

interface HttpFetcher {
  readonly service: FetcherService;
  readonly close: () => Promise<void>;
}

/** Proxy URLs carry credentials; no message that leaves this adapter may contain them. */
const scrubber =
  (config: ResolvedConfig) =>
  (message: string): string =>
    config.proxies.reduce((text, proxy) => {
      const url = new URL(proxy.url);
      let out = text.split(proxy.url).join(proxy.redacted);
      if (url.password) out = out.split(decodeURIComponent(url.password)).join("***").split(url.password).join("***");
      return out;
    }, message);

export const makeHttpFetcher = (config: ResolvedConfig): HttpFetcher => {
  const timeouts = { headersTimeout: config.headersTimeoutMs, bodyTimeout: config.bodyTimeoutMs };
  const direct = new Agent({
    ...timeouts,
    connect: guardedConnector(config.allow, config.lookup, { timeout: config.connectTimeoutMs }),
  });
  const viaProxy = new Map<string, ProxyAgent>(
    config.proxies.map((proxy) => [
      proxy.url,
      new ProxyAgent({ uri: proxy.url, ...timeouts, connectTimeout: config.connectTimeoutMs }),
    ]),
  );
  const dispatcherFor = (route: Route): Dispatcher =>
    route.kind === "direct" ? direct : (viaProxy.get(route.proxy.url) ?? direct);

  const open = async (url: string, route: Route, signal: AbortSignal) => {
    // Through a proxy the proxy resolves the name, so check every address before handing it over.
    if (route.kind === "proxy") await resolveSafeAddress(new URL(url).hostname, config.allow, config.lookup);
    return exchange(url, {
      dispatcher: dispatcherFor(route),
      userAgent: config.userAgent,
      headersTimeoutMs: config.headersTimeoutMs,
      bodyTimeoutMs: config.bodyTimeoutMs,
      signal,
    });
  };
  const robots = new RobotsGate(config, new RobotsCache(), open);
  const scrub = scrubber(config);
  let turn = 0;

  const read: FetcherService["read"] = (request) =>
    Effect.gen(function* () {
      const startedAt = yield* Clock.currentTimeMillis;
      const fail = (failure: Extract<AttemptOutcome, { ok: false }>, attempts: number) =>
        new ReadFailed({ failure: failure.failure, message: scrub(failure.message), attempts });
      if (request.render !== "static") {
        return yield* new ReadFailed({
          failure: { reason: "unknown", status: null, finalUrl: originOnly(request.url) },
          message: 'render "browser" needs the browser fetcher (@gleaner/playwright); this one reads static HTML',
          attempts: 0,
        });
      }
      const plan = planRoutes(request.proxy, config.proxies, turn++);
      if (!plan.ok) {
        return yield* new ReadFailed({
          failure: { reason: "network", status: null, finalUrl: originOnly(request.url) },
          message: plan.message,
          attempts: 0,
        });
      }
      let attempts = 0;
      let last: Extract<AttemptOutcome, { ok: false }> | undefined;
      for (const [index, route] of plan.routes.entries()) {
        const hasNextRoute = index + 1 < plan.routes.length;
        for (let onRoute = 1; ; onRoute++) {
          attempts++;
          const outcome = yield* Effect.promise((signal) => readOnce(config, open, robots, request, route, signal));
          if (outcome.ok) {
            const durationMs = (yield* Clock.currentTimeMillis) - startedAt;
            return { ...outcome.page, attempts, durationMs };
          }
          last = outcome;
          // A blocked direct read goes straight to the proxy: retrying it directly only burns time.
          if (hasNextRoute && shouldSwitchRoute(outcome.failure, route)) break;
          const delay = retryDelayMs(config.retry, onRoute, outcome.failure, outcome.retryAfterMs);
          if (delay === null) break;
          yield* Effect.sleep(Duration.millis(delay));
        }
        if (!last || !hasNextRoute || !shouldSwitchRoute(last.failure, route)) break;
      }
      return yield* fail(last!, attempts);
    });

  return {
    service: { read },
    close: async () => {
      await Promise.all([direct.close(), ...[...viaProxy.values()].map((agent) => agent.close())]);
    },
  };
};

/**
 * The static fetcher as a Layer. The host reads GLEANER_ALLOW_PRIVATE_TARGETS and GLEANER_PROXY_URLS
 * and passes them in `config`; a bad entry fails the Layer with InvalidReadingConfig naming the setting.
 * Connections are closed when the Layer's scope ends.
 */
export const HttpFetcherLive = (config: HttpFetcherConfig = {}): Layer.Layer<Fetcher, InvalidReadingConfig> =>
  Layer.scoped(
    Fetcher,
    Effect.gen(function* () {
      const resolved = yield* Effect.try({
        try: () => resolveConfig(config),
        catch: (error) =>
          error instanceof InvalidReadingConfig
            ? error
            : new InvalidReadingConfig({ setting: "fetcher", message: String(error) }),
      });
      const fetcher = yield* Effect.acquireRelease(
        Effect.sync(() => makeHttpFetcher(resolved)),
        (made) => Effect.promise(() => made.close()),
      );
      return fetcher.service;
    }),
  );
