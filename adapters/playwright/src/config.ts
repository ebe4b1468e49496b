import {
  type AllowList,
  type DnsLookup,
  defaultRetryPolicy,
  gleanerUserAgent,
  parseAllowList,
  parseProxyUrls,
  type ProxyEndpoint,
  type RetryPolicy,
} from "@gleaner/core";
import { lookup as dnsLookup } from "node:dns/promises";

export type { DnsLookup };

export interface PlaywrightFetcherConfig {
  /** GLEANER_BROWSER_PATH: the Chromium executable (Debian's `chromium` package by default). */
  readonly browserPath?: string;
  /** GLEANER_ALLOW_PRIVATE_TARGETS: CIDRs and host names the SSRF guard lets through. Empty by default. */
  readonly allowPrivateTargets?: string | ReadonlyArray<string>;
  /** GLEANER_PROXY_URLS: http/https proxies, credentials allowed. */
  readonly proxyUrls?: string | ReadonlyArray<string>;
  readonly userAgent?: string;
  /**
   * The render budget of one attempt: navigation, load, the wait for the page to render and reading
   * the DOM. A page whose scripts keep the renderer busy past it fails `limit_exceeded` (not retried).
   */
  readonly readTimeoutMs?: number;
  /**
   * Resident memory one renderer process may use (JavaScript heap capped at half of it). A page over
   * it is killed and the read fails `limit_exceeded`.
   */
  readonly maxRendererMemoryBytes?: number;
  /** How long the network must stay silent for the page to count as rendered. */
  readonly quietMs?: number;
  /** Largest document accepted, in bytes (the rendered HTML). */
  readonly maxBodyBytes?: number;
  readonly maxRedirects?: number;
  readonly retry?: Partial<RetryPolicy>;
  readonly lookup?: DnsLookup;
  /** Wall clock for the robots.txt cache; injectable for tests. */
  readonly now?: () => number;
}

export interface ResolvedConfig {
  readonly browserPath: string;
  readonly allow: AllowList;
  readonly proxies: ReadonlyArray<ProxyEndpoint>;
  readonly userAgent: string;
  readonly readTimeoutMs: number;
  readonly maxRendererMemoryBytes: number;
  readonly quietMs: number;
  readonly maxBodyBytes: number;
  readonly maxRedirects: number;
  readonly retry: RetryPolicy;
  readonly lookup: DnsLookup;
  readonly now: () => number;
}

export const DEFAULT_BROWSER_PATH = "/usr/bin/chromium";

const systemLookup: DnsLookup = (hostname) => dnsLookup(hostname, { all: true, order: "verbatim" });

/** Applies defaults; throws InvalidReadingConfig when an allow-list or proxy entry is unusable. */
export const resolveConfig = (config: PlaywrightFetcherConfig = {}): ResolvedConfig => ({
  browserPath: config.browserPath || DEFAULT_BROWSER_PATH,
  allow: parseAllowList(config.allowPrivateTargets),
  proxies: parseProxyUrls(config.proxyUrls),
  userAgent: config.userAgent ?? gleanerUserAgent(),
  readTimeoutMs: config.readTimeoutMs ?? 30_000,
  maxRendererMemoryBytes: config.maxRendererMemoryBytes ?? 1024 * 1024 * 1024,
  quietMs: config.quietMs ?? 500,
  maxBodyBytes: config.maxBodyBytes ?? 10 * 1024 * 1024,
  maxRedirects: config.maxRedirects ?? 10,
  retry: { ...defaultRetryPolicy, ...config.retry },
  lookup: config.lookup ?? systemLookup,
  now: config.now ?? Date.now,
});
