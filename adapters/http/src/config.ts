import { type FetcherSettings, type ResolvedFetcherSettings, resolveFetcherSettings } from "@gleaner/core";
import { lookup } from "node:dns/promises";

export type { DnsLookup } from "@gleaner/core";

/** Core's fetcher settings plus undici's timeouts. */
export interface HttpFetcherConfig extends FetcherSettings {
  /** TCP + TLS connect, per connection. */
  readonly connectTimeoutMs?: number;
  /** From request sent to response headers received. */
  readonly headersTimeoutMs?: number;
  /** Longest silence between two body chunks. */
  readonly bodyTimeoutMs?: number;
  /** Whole attempt, redirects included: a trickling server cannot hold a run forever. */
  readonly attemptTimeoutMs?: number;
}

export interface ResolvedConfig extends ResolvedFetcherSettings {
  readonly connectTimeoutMs: number;
  readonly headersTimeoutMs: number;
  readonly bodyTimeoutMs: number;
  readonly attemptTimeoutMs: number;
}

/** Applies defaults; throws InvalidReadingConfig when an allow-list or proxy entry is unusable. */
export const resolveConfig = (config: HttpFetcherConfig = {}): ResolvedConfig => ({
  ...resolveFetcherSettings(config, lookup),
  connectTimeoutMs: config.connectTimeoutMs ?? 10_000,
  headersTimeoutMs: config.headersTimeoutMs ?? 20_000,
  bodyTimeoutMs: config.bodyTimeoutMs ?? 20_000,
  attemptTimeoutMs: config.attemptTimeoutMs ?? 60_000,
});
