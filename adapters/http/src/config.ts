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

export interface HttpFetcherConfig {
  /** GLEANER_ALLOW_PRIVATE_TARGETS: CIDRs and host names the SSRF guard lets through. Empty by default. */
  readonly allowPrivateTargets?: string | ReadonlyArray<string>;
  /** GLEANER_PROXY_URLS: http/https proxies, credentials allowed. */
  readonly proxyUrls?: string | ReadonlyArray<string>;
  readonly userAgent?: string;
  /** TCP + TLS connect, per connection. */
  readonly connectTimeoutMs?: number;
  /** From request sent to response headers received. */
  readonly headersTimeoutMs?: number;
  /** Longest silence between two body chunks. */
  readonly bodyTimeoutMs?: number;
  /** Whole attempt, redirects included: a trickling server cannot hold a run forever. */
  readonly attemptTimeoutMs?: number;
  /** Largest body accepted, in bytes, after decompression (and before, on the wire). */
  readonly maxBodyBytes?: number;
  readonly maxRedirects?: number;
  readonly retry?: Partial<RetryPolicy>;
  readonly lookup?: DnsLookup;
  /** Wall clock for the robots.txt cache; injectable for tests. */
  readonly now?: () => number;
}

export interface ResolvedConfig {
  readonly allow: AllowList;
  readonly proxies: ReadonlyArray<ProxyEndpoint>;
  readonly userAgent: string;
  readonly connectTimeoutMs: number;
  readonly headersTimeoutMs: number;
  readonly bodyTimeoutMs: number;
  readonly attemptTimeoutMs: number;
  readonly maxBodyBytes: number;
  readonly maxRedirects: number;
  readonly retry: RetryPolicy;
  readonly lookup: DnsLookup;
  readonly now: () => number;
}

const systemLookup: DnsLookup = (hostname) => dnsLookup(hostname, { all: true, order: "verbatim" });

/** Applies defaults; throws InvalidReadingConfig when an allow-list or proxy entry is unusable. */
export const resolveConfig = (config: HttpFetcherConfig = {}): ResolvedConfig => ({
  allow: parseAllowList(config.allowPrivateTargets),
  proxies: parseProxyUrls(config.proxyUrls),
  userAgent: config.userAgent ?? gleanerUserAgent(),
  connectTimeoutMs: config.connectTimeoutMs ?? 10_000,
  headersTimeoutMs: config.headersTimeoutMs ?? 20_000,
  bodyTimeoutMs: config.bodyTimeoutMs ?? 20_000,
  attemptTimeoutMs: config.attemptTimeoutMs ?? 60_000,
  maxBodyBytes: config.maxBodyBytes ?? 10 * 1024 * 1024,
  maxRedirects: config.maxRedirects ?? 10,
  retry: { ...defaultRetryPolicy, ...config.retry },
  lookup: config.lookup ?? systemLookup,
  now: config.now ?? Date.now,
});
