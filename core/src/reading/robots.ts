import robotsParserModule from "robots-parser";
import type { ReadFailureReason } from "../schema/run.js";
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
/** An unreachable robots.txt disallows everything; re-ask sooner so a recovered site is read again. */
export const ROBOTS_UNREACHABLE_MAX_AGE_MS = 5 * 60 * 1000;

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

/** Rules per origin, each kept at most 24 h (less when the response said so or robots.txt was unreachable). */
export class RobotsCache {
  private readonly entries = new Map<string, Entry>();

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

  set(origin: string, rules: RobotsRules, now: number, maxAgeMs: number | null = null): void {
    const cap = rules.kind === "disallow-all" ? ROBOTS_UNREACHABLE_MAX_AGE_MS : ROBOTS_MAX_AGE_MS;
    const age = Math.min(cap, maxAgeMs ?? cap);
    if (this.entries.size >= this.maxEntries && !this.entries.has(origin)) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(origin, { rules, expiresAt: now + age });
  }
}
