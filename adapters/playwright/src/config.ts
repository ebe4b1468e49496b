import { type FetcherSettings, type ResolvedFetcherSettings, resolveFetcherSettings } from "@gleaner/core";
import { lookup } from "node:dns/promises";

export type { DnsLookup } from "@gleaner/core";

/** Core's fetcher settings (maxBodyBytes bounds the rendered HTML) plus the browser's own. */
export interface PlaywrightFetcherConfig extends FetcherSettings {
  /** GLEANER_BROWSER_PATH: the Chromium executable (Debian's `chromium` package by default). */
  readonly browserPath?: string;
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
}

export interface ResolvedConfig extends ResolvedFetcherSettings {
  readonly browserPath: string;
  readonly readTimeoutMs: number;
  readonly maxRendererMemoryBytes: number;
  readonly quietMs: number;
}

export const DEFAULT_BROWSER_PATH = "/usr/bin/chromium";

/** Applies defaults; throws InvalidReadingConfig when an allow-list or proxy entry is unusable. */
export const resolveConfig = (config: PlaywrightFetcherConfig = {}): ResolvedConfig => ({
  ...resolveFetcherSettings(config, lookup),
  browserPath: config.browserPath || DEFAULT_BROWSER_PATH,
  readTimeoutMs: config.readTimeoutMs ?? 30_000,
  maxRendererMemoryBytes: config.maxRendererMemoryBytes ?? 1024 * 1024 * 1024,
  quietMs: config.quietMs ?? 500,
});
