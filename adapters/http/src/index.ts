export type { DnsLookup, HttpFetcherConfig } from "./config.js";
export { HttpFetcherLive } from "./fetcher.js";
