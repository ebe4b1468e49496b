import { ROBOTS_MAX_BYTES, type RobotsClient, type Route } from "@gleaner/core";
import { request } from "playwright-core";
import type { ResolvedConfig } from "./config.js";
import { type GuardProxy, targetKey } from "./guard-proxy.js";
import { transportFailure } from "./transport-errors.js";

/** Starts the guard proxy a fetch on this route goes through (see guard-proxy.ts). */
export type OpenGuard = (route: Route) => Promise<GuardProxy>;

/**
 * How the browser fetcher hands robots.txt hops to core's RobotsGate: Playwright's HTTP client
 * (not a page, so no script runs) through the same guard proxy and route as the page, redirects
 * not followed so the gate counts and checks each one.
 */
export const playwrightRobotsClient =
  (config: ResolvedConfig, openGuard: OpenGuard) =>
  async (route: Route): Promise<RobotsClient> => {
    const guard = await openGuard(route);
    const client = await request.newContext({
      proxy: { server: guard.server },
      userAgent: config.userAgent,
      timeout: config.readTimeoutMs,
    });
    return {
      get: async (url) => {
        const response = await client.get(url, { maxRedirects: 0, failOnStatusCode: false });
        const headers = response.headers();
        return {
          status: response.status(),
          location: headers.location ?? null,
          cacheControl: headers["cache-control"] ?? null,
          discard: () => {},
          text: async () => new TextDecoder("utf-8").decode((await response.body()).subarray(0, ROBOTS_MAX_BYTES)),
        };
      },
      // The guard proxy knows why it refused or failed a connection better than the client's error.
      classify: (error, url) => guard.recordFor(targetKey(new URL(url))) ?? transportFailure(error),
      close: async () => {
        await client.dispose().catch(() => {});
        await guard.close();
      },
    };
  };
