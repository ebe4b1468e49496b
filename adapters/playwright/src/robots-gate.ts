import {
  maxAgeFrom,
  ROBOTS_MAX_BYTES,
  ROBOTS_MAX_REDIRECTS,
  type RobotsCache,
  type RobotsFetchOutcome,
  type RobotsRules,
  robotsAllow,
  robotsRulesFrom,
  robotsTxtUrl,
  type Route,
} from "@gleaner/core";
import { request } from "playwright-core";
import type { ResolvedConfig } from "./config.js";
import { type GuardProxy, targetKey } from "./guard-proxy.js";
import { transportFailure } from "./transport-errors.js";

/** Starts the guard proxy a fetch on this route goes through (see guard-proxy.ts). */
export type OpenGuard = (route: Route) => Promise<GuardProxy>;

/**
 * "May Gleaner read this URL?" from the origin's robots.txt, by the core rules (RFC 9309, see
 * core/src/reading/robots.ts). The file is fetched by Playwright's HTTP client (not a page, so no
 * script runs) through the same guard proxy and route as the page, one hop at a time so each
 * redirect is counted; the rules are cached per origin and concurrent reads share one fetch.
 */
export class RobotsGate {
  private readonly loading = new Map<string, Promise<RobotsRules>>();

  constructor(
    private readonly config: ResolvedConfig,
    private readonly cache: RobotsCache,
    private readonly openGuard: OpenGuard,
  ) {}

  /** null when the URL may be read; otherwise the rules that forbid it. */
  async refusal(url: string, route: Route): Promise<Extract<RobotsRules, { kind: "disallow-all" | "file" }> | null> {
    const origin = new URL(url).origin;
    const rules = this.cache.get(origin, this.config.now()) ?? (await this.load(origin, url, route));
    return rules.kind === "allow-all" || robotsAllow(rules, url) ? null : rules;
  }

  private load(origin: string, url: string, route: Route): Promise<RobotsRules> {
    const pending = this.loading.get(origin);
    if (pending) return pending;
    const loading = this.fetchRules(url, route).then(({ outcome, maxAgeMs }) => {
      const rules = robotsRulesFrom(outcome);
      this.cache.set(origin, rules, this.config.now(), maxAgeMs);
      return rules;
    });
    this.loading.set(origin, loading);
    return loading.finally(() => this.loading.delete(origin));
  }

  private async fetchRules(
    pageUrl: string,
    route: Route,
  ): Promise<{ outcome: RobotsFetchOutcome; maxAgeMs: number | null }> {
    const guard = await this.openGuard(route);
    const client = await request.newContext({
      proxy: { server: guard.server },
      userAgent: this.config.userAgent,
      timeout: this.config.readTimeoutMs,
    });
    let url = robotsTxtUrl(pageUrl);
    try {
      for (let hop = 0; ; hop++) {
        let response: Awaited<ReturnType<typeof client.get>>;
        try {
          response = await client.get(url, { maxRedirects: 0, failOnStatusCode: false });
        } catch (error) {
          const failure = guard.recordFor(targetKey(new URL(url))) ?? transportFailure(error);
          const transport = ["network", "timeout", "connection_reset", "unsafe_target"].includes(failure.reason);
          return {
            outcome: { kind: "unreachable", why: failure.message, ...(transport ? { reason: failure.reason } : {}) },
            maxAgeMs: null,
          };
        }
        const location = response.headers().location;
        if (response.status() >= 300 && response.status() < 400 && location) {
          if (hop >= ROBOTS_MAX_REDIRECTS)
            return { outcome: { kind: "unavailable", why: "more than 5 redirects" }, maxAgeMs: null };
          url = new URL(location, url).href;
          continue;
        }
        const bytes = await response.body();
        const body = new TextDecoder("utf-8").decode(bytes.subarray(0, ROBOTS_MAX_BYTES));
        return {
          outcome: { kind: "response", status: response.status(), body, url },
          maxAgeMs: maxAgeFrom(response.headers()["cache-control"] ?? null),
        };
      }
    } finally {
      await client.dispose().catch(() => {});
      await guard.close();
    }
  }
}
