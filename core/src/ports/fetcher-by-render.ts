import type { FetcherService } from "./fetcher.js";

/**
 * One Fetcher out of two: `render: static` reads go to the static fetcher, `render: browser` reads to
 * the browser fetcher. The engine calls one Fetcher for every read; a host composes them with this.
 */
export const fetcherByRender = (staticFetcher: FetcherService, browserFetcher: FetcherService): FetcherService => ({
  read: (request) => (request.render === "browser" ? browserFetcher : staticFetcher).read(request),
});
