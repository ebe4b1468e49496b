import { type AllowList, parseAllowList } from "./target-policy.js";
import { parseProxyUrls, type ProxyEndpoint } from "./proxy.js";
import type { DnsLookup } from "./resolve-target.js";
import { defaultRetryPolicy, type RetryPolicy } from "./retry.js";
import { gleanerUserAgent } from "./user-agent.js";

/** What every Fetcher adapter is configured with, whatever it reads pages through. */
export interface FetcherSettings {
  /** GLEANER_ALLOW_PRIVATE_TARGETS: CIDRs and host names the SSRF guard lets through. Empty by default. */
  readonly allowPrivateTargets?: string | ReadonlyArray<string>;
  /** GLEANER_PROXY_URLS: http/https proxies, credentials allowed. */
  readonly proxyUrls?: string | ReadonlyArray<string>;
  readonly userAgent?: string;
  /** Largest body accepted, in bytes. */
  readonly maxBodyBytes?: number;
  readonly maxRedirects?: number;
  readonly retry?: Partial<RetryPolicy>;
  readonly lookup?: DnsLookup;
  /** Wall clock for the robots.txt cache; injectable for tests. */
  readonly now?: () => number;
}

export interface ResolvedFetcherSettings {
  readonly allow: AllowList;
  readonly proxies: ReadonlyArray<ProxyEndpoint>;
  readonly userAgent: string;
  readonly maxBodyBytes: number;
  readonly maxRedirects: number;
  readonly retry: RetryPolicy;
  readonly lookup: DnsLookup;
  readonly now: () => number;
}

/** The platform's resolver (node:dns/promises `lookup`, which core cannot import). */
export type PlatformLookup = (hostname: string, options: { all: true; order: "verbatim" }) => ReturnType<DnsLookup>;

/**
 * Applies the defaults every fetcher shares; without an injected `lookup`, the platform's resolver
 * is asked for every address, in its own order (the SSRF guard checks them all). Throws
 * InvalidReadingConfig when an allow-list or proxy entry is unusable.
 */
export const resolveFetcherSettings = (
  settings: FetcherSettings,
  platformLookup: PlatformLookup,
): ResolvedFetcherSettings => ({
  allow: parseAllowList(settings.allowPrivateTargets),
  proxies: parseProxyUrls(settings.proxyUrls),
  userAgent: settings.userAgent ?? gleanerUserAgent(),
  maxBodyBytes: settings.maxBodyBytes ?? 10 * 1024 * 1024,
  maxRedirects: settings.maxRedirects ?? 10,
  retry: { ...defaultRetryPolicy, ...settings.retry },
  lookup: settings.lookup ?? ((hostname) => platformLookup(hostname, { all: true, order: "verbatim" })),
  now: settings.now ?? Date.now,
});
