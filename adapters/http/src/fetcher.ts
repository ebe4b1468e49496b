import {
  type Fetcher,
  type FetcherService,
  type InvalidReadingConfig,
  ROBOTS_MAX_BYTES,
  RobotsCache,
  scopedFetcher,
  type RobotsClient,
  RobotsGate,
  type Route,
  readWithAttempts,
  resolveSafeAddress,
} from "@gleaner/core";
import type * as Layer from "effect/Layer";
import { Agent, type Dispatcher, ProxyAgent } from "undici";
import { type HttpFetcherConfig, type ResolvedConfig, resolveConfig } from "./config.js";
import { type OpenExchange, readOnce } from "./page-reader.js";
import { guardedConnector } from "./target-guard.js";
import { classifyTransportError } from "./transport-errors.js";
import { exchange } from "./transport.js";

interface HttpFetcher {
  readonly service: FetcherService;
  readonly close: () => Promise<void>;
}

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

  const open: OpenExchange = async (url, route, signal, headers) => {
    // Through a proxy the proxy resolves the name, so check every address before handing it over.
    if (route.kind === "proxy") await resolveSafeAddress(new URL(url).hostname, config.allow, config.lookup);
    return exchange(url, {
      dispatcher: dispatcherFor(route),
      userAgent: config.userAgent,
      headersTimeoutMs: config.headersTimeoutMs,
      bodyTimeoutMs: config.bodyTimeoutMs,
      signal,
      ...(headers ? { headers } : {}),
    });
  };
  // robots.txt hops go through the same guarded transport as pages, with their own deadline: the
  // fetch is shared by every read waiting on the origin.
  const robotsClient = async (route: Route): Promise<RobotsClient> => {
    const signal = AbortSignal.timeout(config.attemptTimeoutMs);
    return {
      get: async (url) => {
        const response = await open(url, route, signal);
        return {
          status: response.status,
          location: response.headers.get("location"),
          cacheControl: response.headers.get("cache-control"),
          discard: response.discard,
          text: async () => {
            const { bytes } = await response.readBody(Math.max(config.maxBodyBytes, ROBOTS_MAX_BYTES));
            return new TextDecoder("utf-8").decode(bytes);
          },
        };
      },
      classify: (error) => classifyTransportError(error, signal.aborted),
      close: async () => {},
    };
  };
  const robots = new RobotsGate(new RobotsCache(), config.now, config.allow, robotsClient);
  let turn = 0;
  const read = readWithAttempts({
    render: "static",
    otherRender: "the browser fetcher (@gleaner/playwright); this one reads static HTML",
    proxies: config.proxies,
    retry: config.retry,
    nextTurn: () => turn++,
    attempt: (request, route, signal) => readOnce(config, open, robots, request, route, signal),
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
  scopedFetcher(() => resolveConfig(config), makeHttpFetcher);
