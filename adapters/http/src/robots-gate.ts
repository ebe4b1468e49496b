import {
  checkUrl,
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
import type { ResolvedConfig } from "./config.js";
import { classifyTransportError } from "./transport-errors.js";
import type { Exchange } from "./transport.js";

/** Opens one GET on a route, with the same SSRF checks as page reads (see fetcher.ts). */
export type OpenExchange = (url: string, route: Route, signal: AbortSignal) => Promise<Exchange>;

/**
 * Answers "may Gleaner read this URL?" from the origin's robots.txt, fetched once per origin and
 * cached (see core/src/reading/robots.ts for the RFC 9309 rules). Concurrent reads of one origin share
 * one fetch of its robots.txt.
 */
export class RobotsGate {
  private readonly loading = new Map<string, Promise<RobotsRules>>();

  constructor(
    private readonly config: ResolvedConfig,
    private readonly cache: RobotsCache,
    private readonly open: OpenExchange,
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
    // Its own deadline: the fetch is shared by every read waiting on this origin.
    const signal = AbortSignal.timeout(this.config.attemptTimeoutMs);
    let url = robotsTxtUrl(pageUrl);
    try {
      for (let hop = 0; ; hop++) {
        const verdict = checkUrl(url, this.config.allow);
        if (!verdict.allowed) {
          return {
            outcome: { kind: "unreachable", why: `robots.txt redirects to an unsafe target: ${verdict.why}` },
            maxAgeMs: null,
          };
        }
        const response = await this.open(url, route, signal);
        const location = response.headers.get("location");
        if (response.status >= 300 && response.status < 400 && location) {
          response.discard();
          if (hop >= ROBOTS_MAX_REDIRECTS)
            return { outcome: { kind: "unavailable", why: "more than 5 redirects" }, maxAgeMs: null };
          url = new URL(location, url).href;
          continue;
        }
        const { bytes } = await response.readBody(Math.max(this.config.maxBodyBytes, ROBOTS_MAX_BYTES));
        const body = new TextDecoder("utf-8").decode(bytes);
        return {
          outcome: { kind: "response", status: response.status, body, url },
          maxAgeMs: maxAgeFrom(response.headers.get("cache-control")),
        };
      }
    } catch (error) {
      const { reason, message } = classifyTransportError(error, signal.aborted);
      // The site (or its robots.txt redirect) cannot be reached at all: the read reports why.
      const transport = ["network", "timeout", "connection_reset", "unsafe_target"].includes(reason);
      return { outcome: { kind: "unreachable", why: message, ...(transport ? { reason } : {}) }, maxAgeMs: null };
    }
  }
}
