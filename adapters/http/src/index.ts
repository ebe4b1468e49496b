export type { DnsLookup, HttpFetcherConfig } from "./config.js";
export { HttpFetcherLive } from "./fetcher.js";
export { guardedConnector } from "./target-guard.js";
