import {
  blockedReasons,
  Fetcher,
  type FetcherService,
  InvalidReadingConfig,
  originOnly,
  planRoutes,
  type ReadFailure,
  ReadFailed,
  retryDelayMs,
  RobotsCache,
  type Route,
} from "@gleaner/core";
import { Clock, Duration, Effect, Layer } from "effect";
import { BrowserKeeper } from "./browser-keeper.js";
import { type PlaywrightFetcherConfig, type ResolvedConfig, resolveConfig } from "./config.js";
import { startGuardProxy } from "./guard-proxy.js";
import { type AttemptOutcome, readOnce } from "./page-read.js";
import { RobotsGate } from "./robots-gate.js";

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

/** After a failure on one route, is the next route (a proxy) worth trying? Same rule as static reads. */
const shouldSwitchRoute = (failure: ReadFailure, route: Route): boolean =>
  blockedReasons.has(failure.reason) ||
  (route.kind === "proxy" && (failure.reason === "network" || failure.reason === "timeout"));

export interface PlaywrightFetcher {
  readonly service: FetcherService;
  readonly keeper: BrowserKeeper;
  readonly close: () => Promise<void>;
}

export const makePlaywrightFetcher = (config: ResolvedConfig): PlaywrightFetcher => {
  const keeper = new BrowserKeeper(config.browserPath);
  const openGuard = (route: Route) =>
    startGuardProxy({
      allow: config.allow,
      lookup: config.lookup,
      upstream: route.kind === "proxy" ? route.proxy : null,
      connectTimeoutMs: Math.min(10_000, config.readTimeoutMs),
    });
  const deps = { config, keeper, robots: new RobotsGate(config, new RobotsCache(), openGuard), openGuard };
  const scrub = scrubber(config);
  let turn = 0;

  const read: FetcherService["read"] = (request) =>
    Effect.gen(function* () {
      const startedAt = yield* Clock.currentTimeMillis;
      if (request.render !== "browser") {
        return yield* new ReadFailed({
          failure: { reason: "unknown", status: null, finalUrl: originOnly(request.url) },
          message: 'render "static" needs the static fetcher (@gleaner/http); this one renders pages in Chromium',
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
          const outcome = yield* Effect.promise((signal) => readOnce(deps, request, route, signal));
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
      const failure = last!;
      return yield* new ReadFailed({ failure: failure.failure, message: scrub(failure.message), attempts });
    });

  return { service: { read }, keeper, close: () => keeper.close() };
};

/**
 * The browser fetcher as a Layer. Building it starts nothing: Chromium is launched on the first
 * browser read and closed when the Layer's scope ends. A bad allow-list or proxy entry fails the
 * Layer with InvalidReadingConfig naming the setting.
 */
export const PlaywrightFetcherLive = (
  config: PlaywrightFetcherConfig = {},
): Layer.Layer<Fetcher, InvalidReadingConfig> =>
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
        Effect.sync(() => makePlaywrightFetcher(resolved)),
        (made) => Effect.promise(() => made.close()),
      );
      return fetcher.service;
    }),
  );
