import {
  type Fetcher,
  type FetcherService,
  type InvalidReadingConfig,
  RobotsCache,
  scopedFetcher,
  RobotsGate,
  type Route,
  readWithAttempts,
} from "@gleaner/core";
import type * as Layer from "effect/Layer";
import { BrowserKeeper } from "./browser-keeper.js";
import { type PlaywrightFetcherConfig, type ResolvedConfig, resolveConfig } from "./config.js";
import { startGuardProxy } from "./guard-proxy.js";
import { readOnce } from "./page-read.js";
import { playwrightRobotsClient } from "./robots-client.js";
import { RunSessions } from "./run-sessions.js";

export interface PlaywrightFetcher {
  readonly service: FetcherService;
  readonly keeper: BrowserKeeper;
  readonly close: () => Promise<void>;
}

export const makePlaywrightFetcher = (config: ResolvedConfig): PlaywrightFetcher => {
  const keeper = new BrowserKeeper(config.browserPath, { rendererMemoryBytes: config.maxRendererMemoryBytes });
  const openGuard = (route: Route) =>
    startGuardProxy({
      allow: config.allow,
      lookup: config.lookup,
      upstream: route.kind === "proxy" ? route.proxy : null,
      connectTimeoutMs: Math.min(10_000, config.readTimeoutMs),
    });
  const robots = new RobotsGate(new RobotsCache(), config.now, config.allow, playwrightRobotsClient(config, openGuard));
  const sessions = new RunSessions(config, openGuard);
  const deps = { config, keeper, robots, sessions };
  let turn = 0;

  const read = readWithAttempts({
    render: "browser",
    otherRender: "the static fetcher (@gleaner/http); this one renders pages in Chromium",
    proxies: config.proxies,
    retry: config.retry,
    nextTurn: () => turn++,
    attempt: (request, route, signal) => readOnce(deps, request, route, signal),
  });

  const close = async () => {
    await sessions.closeAll();
    await keeper.close();
  };
  return { service: { read }, keeper, close };
};

/**
 * The browser fetcher as a Layer. Building it starts nothing: Chromium is launched on the first
 * browser read and closed when the Layer's scope ends. A bad allow-list or proxy entry fails the
 * Layer with InvalidReadingConfig naming the setting.
 */
export const PlaywrightFetcherLive = (
  config: PlaywrightFetcherConfig = {},
): Layer.Layer<Fetcher, InvalidReadingConfig> => scopedFetcher(() => resolveConfig(config), makePlaywrightFetcher);
