import robotsParserModule from "robots-parser";
import type { ReadFailureReason } from "../schema/run.js";
import { isoAt } from "../time.js";
import { ROBOTS_PRODUCT_TOKEN } from "./user-agent.js";

/**
 * robots.txt per RFC 9309, parsed by robots-parser. What the fetch of /robots.txt returned decides the
 * rules: 2xx → the file's rules for our product token (else `*`); 4xx → "unavailable", allow all;
 * 5xx or unreachable (network error) → disallow all; more than 5 redirects → unavailable, allow all. Adapters fetch the file (with
 * their own SSRF guard, following up to 5 redirects) and share this cache, at most 24 h per origin.
 */

type Robot = ReturnType<typeof robotsParserModule.default>;
/** robots-parser is CommonJS (`module.exports = fn`) but its types declare a default export. */
const robotsParser = robotsParserModule as unknown as (url: string, contents: string) => Robot;

export const ROBOTS_MAX_REDIRECTS = 5;
/** RFC 9309 asks parsers to read at least 500 KiB; anything beyond is ignored. */
export const ROBOTS_MAX_BYTES = 500 * 1024;
export const ROBOTS_MAX_AGE_MS = 24 * 60 * 60 * 1000;
/**
 * A failed robots.txt (5xx, unreachable) disallows everything, but is usually transient: it is kept
 * 10 s after the first failure in a row, doubling with each further one up to 5 min, and forgotten
 * on the first success, so one hiccup does not fail every run of the site for minutes.
 */
export const ROBOTS_FAILURE_FIRST_MAX_AGE_MS = 10 * 1000;
export const ROBOTS_UNREACHABLE_MAX_AGE_MS = 5 * 60 * 1000;

/** How long the `failures`-th failure in a row (1, 2, …) is kept. */
export const robotsFailureMaxAgeMs = (failures: number): number =>
  Math.min(
    ROBOTS_UNREACHABLE_MAX_AGE_MS,
    ROBOTS_FAILURE_FIRST_MAX_AGE_MS * 2 ** Math.max(0, Math.min(failures - 1, 16)),
  );

export type RobotsRules =
  | { readonly kind: "allow-all"; readonly why: string }
  | {
      readonly kind: "disallow-all";
      readonly why: string;
      /**
       * Set when robots.txt could not be fetched at all (network, timeout, reset): the site itself is
       * unreachable, and a read reports that reason rather than `robots_disallowed`.
       */
      readonly unreachable?: ReadFailureReason;
    }
  | { readonly kind: "file"; readonly isAllowed: (url: string, productToken: string) => boolean };

export type RobotsFetchOutcome =
  | { readonly kind: "response"; readonly status: number; readonly body: string; readonly url: string }
  | { readonly kind: "unreachable"; readonly why: string; readonly reason?: ReadFailureReason }
  /** RFC 9309 §2.3.1.2: more than five consecutive redirects → the file is "unavailable" (like a 4xx). */
  | { readonly kind: "unavailable"; readonly why: string };

export const robotsTxtUrl = (pageUrl: string): string => new URL("/robots.txt", pageUrl).href;

export const robotsRulesFrom = (outcome: RobotsFetchOutcome): RobotsRules => {
  if (outcome.kind === "unavailable") return { kind: "allow-all", why: outcome.why };
  if (outcome.kind === "unreachable") {
    const rules = { kind: "disallow-all", why: `robots.txt is unreachable (${outcome.why})` } as const;
    return outcome.reason ? { ...rules, unreachable: outcome.reason } : rules;
  }
  const { status } = outcome;
  if (status >= 500) return { kind: "disallow-all", why: `robots.txt answered ${status}` };
  if (status >= 400) return { kind: "allow-all", why: `robots.txt answered ${status}` };
  if (status < 200 || status >= 300) return { kind: "disallow-all", why: `robots.txt answered ${status}` };
  const robot = robotsParser(outcome.url, outcome.body.slice(0, ROBOTS_MAX_BYTES));
  return {
    kind: "file",
    // robots-parser answers undefined for URLs of another origin; the rules of one file only speak for its own.
    isAllowed: (url, productToken) => {
      const sameOrigin = new URL(url);
      const local = new URL(sameOrigin.pathname + sameOrigin.search, outcome.url).href;
      return robot.isAllowed(local, productToken) !== false;
    },
  };
};

export const robotsAllow = (rules: RobotsRules, url: string, productToken = ROBOTS_PRODUCT_TOKEN): boolean =>
  rules.kind === "allow-all" ? true : rules.kind === "disallow-all" ? false : rules.isAllowed(url, productToken);

/** Cache-Control max-age, in ms, when the robots.txt response gave one. */
export const maxAgeFrom = (cacheControl: string | null): number | null => {
  const match = /max-age\s*=\s*(\d+)/i.exec(cacheControl ?? "");
  return match?.[1] ? Number.parseInt(match[1], 10) * 1000 : null;
};

interface Entry {
  readonly rules: RobotsRules;
  readonly expiresAt: number;
}

/**
 * Rules per origin, each kept at most 24 h (less when the response said so); a failure only briefly,
 * with backoff (robotsFailureMaxAgeMs).
 */
export class RobotsCache {
  private readonly entries = new Map<string, Entry>();
  /** Failures in a row per origin; outlives the entries so the backoff grows. */
  private readonly failures = new Map<string, number>();

  constructor(private readonly maxEntries = 10_000) {}

  get(origin: string, now: number): RobotsRules | null {
    const entry = this.entries.get(origin);
    if (!entry) return null;
    if (entry.expiresAt <= now) {
      this.entries.delete(origin);
      return null;
    }
    return entry.rules;
  }

  /**
   * Stores the rules and returns them as stored: a failure's `why` then says it is transient and
   * when robots.txt is asked again, which every read refused meanwhile reports.
   */
  set(origin: string, rules: RobotsRules, now: number, maxAgeMs: number | null = null): RobotsRules {
    let stored = rules;
    let age = Math.min(ROBOTS_MAX_AGE_MS, maxAgeMs ?? ROBOTS_MAX_AGE_MS);
    if (rules.kind === "disallow-all") {
      const failures = (this.failures.get(origin) ?? 0) + 1;
      this.evictOldest(this.failures, origin);
      this.failures.set(origin, failures);
      age = robotsFailureMaxAgeMs(failures);
      const again = isoAt(now + age);
      stored = {
        ...rules,
        why: `${rules.why}; failure ${failures} in a row, robots.txt is asked again after ${again}`,
      };
    } else {
      this.failures.delete(origin);
    }
    this.evictOldest(this.entries, origin);
    this.entries.set(origin, { rules: stored, expiresAt: now + age });
    return stored;
  }

  private evictOldest(map: Map<string, unknown>, origin: string): void {
    if (map.size >= this.maxEntries && !map.has(origin)) {
      const oldest = map.keys().next().value;
      if (oldest !== undefined) map.delete(oldest);
    }
  }
}
