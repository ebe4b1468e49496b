export { CHROMIUM_ARGS } from "./browser-keeper.js";
export { DEFAULT_BROWSER_PATH, type DnsLookup, type PlaywrightFetcherConfig } from "./config.js";
export { makePlaywrightFetcher, type PlaywrightFetcher, PlaywrightFetcherLive } from "./fetcher.js";
export { resolveConfig as resolvePlaywrightConfig } from "./config.js";
