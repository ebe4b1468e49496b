import {
  type DnsLookup,
  type FetcherSettings,
  type ResolvedFetcherSettings,
  resolveFetcherSettings,
} from "@gleaner/core";
import { lookup as dnsLookup } from "node:dns/promises";

export type { DnsLookup };

/** Core's fetcher settings (maxBodyBytes bounds the rendered HTML) plus the browser's own. */
export interface PlaywrightFetcherConfig extends FetcherSettings {
  /** GLEANER_BROWSER_PATH: the Chromium executable (Debian's `chromium` package by default). */
  readonly browserPath?: string;
  /** One attempt: navigation, load and the wait for the page to render. */
  readonly readTimeoutMs?: number;
  /** How long the network must stay silent for the page to count as rendered. */
  readonly quietMs?: number;
}

export interface ResolvedConfig extends ResolvedFetcherSettings {
  readonly browserPath: string;
  readonly readTimeoutMs: number;
  readonly quietMs: number;
}

export const DEFAULT_BROWSER_PATH = "/usr/bin/chromium";

const systemLookup: DnsLookup = (hostname) => dnsLookup(hostname, { all: true, order: "verbatim" });

/** Applies defaults; throws InvalidReadingConfig when an allow-list or proxy entry is unusable. */
export const resolveConfig = (config: PlaywrightFetcherConfig = {}): ResolvedConfig => ({
  ...resolveFetcherSettings(config, systemLookup),
  browserPath: config.browserPath || DEFAULT_BROWSER_PATH,
  readTimeoutMs: config.readTimeoutMs ?? 60_000,
  quietMs: config.quietMs ?? 500,
});
