import type { ReadFailureReason } from "../schema/run.js";
import { originOnly } from "./origin.js";
import type { Route } from "./proxy.js";
import { type AttemptOutcome, failedAttempt } from "./read-attempts.js";
import {
  maxAgeFrom,
  ROBOTS_MAX_REDIRECTS,
  type RobotsCache,
  type RobotsFetchOutcome,
  type RobotsRules,
  robotsAllow,
  robotsRulesFrom,
  robotsTxtUrl,
} from "./robots.js";
import { type AllowList, checkUrl } from "./target-policy.js";

/** One response while fetching robots.txt, redirects not followed. */
export interface RobotsHop {
  readonly status: number;
  readonly location: string | null;
  readonly cacheControl: string | null;
  /** The body as text (the adapter caps what it reads). */
  readonly text: () => Promise<string>;
  /** Drops a body that will not be read (a redirect). */
  readonly discard: () => void;
}

/** What an adapter lends the gate to fetch one origin's robots.txt on one route; closed afterwards. */
export interface RobotsClient {
  readonly get: (url: string) => Promise<RobotsHop>;
  /** Why `get` failed, in the readFailure vocabulary (the adapter knows its transport's errors). */
  readonly classify: (error: unknown, url: string) => { readonly reason: ReadFailureReason; readonly message: string };
  readonly close: () => Promise<void>;
}

const transportReasons: ReadonlySet<ReadFailureReason> = new Set([
  "network",
  "timeout",
  "connection_reset",
  "unsafe_target",
]);

/**
 * "May Gleaner read this URL?" from the origin's robots.txt, by the RFC 9309 rules of robots.ts:
 * fetched once per origin (concurrent reads share the fetch), one hop at a time so every redirect is
 * counted and checked against the target policy, and cached. Every fetcher uses this gate; only how
 * a hop is fetched differs.
 */
export class RobotsGate {
  private readonly loading = new Map<string, Promise<RobotsRules>>();

  constructor(
    private readonly cache: RobotsCache,
    private readonly now: () => number,
    private readonly allow: AllowList,
    private readonly openClient: (route: Route) => Promise<RobotsClient>,
  ) {}

  /** null when the URL may be read; otherwise the rules that forbid it. */
  async refusal(url: string, route: Route): Promise<Extract<RobotsRules, { kind: "disallow-all" | "file" }> | null> {
    const origin = new URL(url).origin;
    const rules = this.cache.get(origin, this.now()) ?? (await this.load(origin, url, route));
    return rules.kind === "allow-all" || robotsAllow(rules, url) ? null : rules;
  }

  /** The refusal as a failed attempt (`robots_disallowed`, or why the site is unreachable), or null. */
  async verdict(url: string, route: Route): Promise<AttemptOutcome | null> {
    const refusal = await this.refusal(url, route);
    if (refusal?.kind === "disallow-all" && refusal.unreachable) {
      return failedAttempt(refusal.unreachable, null, url, `the site is unreachable: ${refusal.why}`);
    }
    if (!refusal) return null;
    const why = refusal.kind === "disallow-all" ? refusal.why : "its rules for Gleaner";
    return failedAttempt(
      "robots_disallowed",
      null,
      url,
      `robots.txt of ${originOnly(url)} disallows this page (${why})`,
    );
  }

  private load(origin: string, url: string, route: Route): Promise<RobotsRules> {
    const pending = this.loading.get(origin);
    if (pending) return pending;
    const loading = this.fetchRules(url, route).then(({ outcome, maxAgeMs }) => {
      return this.cache.set(origin, robotsRulesFrom(outcome), this.now(), maxAgeMs);
    });
    this.loading.set(origin, loading);
    return loading.finally(() => this.loading.delete(origin));
  }

  private async fetchRules(
    pageUrl: string,
    route: Route,
  ): Promise<{ outcome: RobotsFetchOutcome; maxAgeMs: number | null }> {
    const client = await this.openClient(route);
    let url = robotsTxtUrl(pageUrl);
    try {
      for (let hop = 0; ; hop++) {
        const verdict = checkUrl(url, this.allow);
        if (!verdict.allowed) {
          return {
            outcome: { kind: "unreachable", why: `robots.txt redirects to an unsafe target: ${verdict.why}` },
            maxAgeMs: null,
          };
        }
        try {
          const response = await client.get(url);
          if (response.status >= 300 && response.status < 400 && response.location) {
            response.discard();
            if (hop >= ROBOTS_MAX_REDIRECTS) {
              return { outcome: { kind: "unavailable", why: "more than 5 redirects" }, maxAgeMs: null };
            }
            url = new URL(response.location, url).href;
            continue;
          }
          const body = await response.text();
          return {
            outcome: { kind: "response", status: response.status, body, url },
            maxAgeMs: maxAgeFrom(response.cacheControl),
          };
        } catch (error) {
          // The site (or its robots.txt redirect) cannot be reached at all: the read reports why.
          const { reason, message } = client.classify(error, url);
          const outcome = {
            kind: "unreachable",
            why: message,
            ...(transportReasons.has(reason) ? { reason } : {}),
          } as const;
          return { outcome, maxAgeMs: null };
        }
      }
    } finally {
      await client.close();
    }
  }
}
