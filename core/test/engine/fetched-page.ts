import type { FetchedPage } from "../../src/index.js";

/** What a Fetcher answers for a page read at once, with no redirect: for stub fetchers in tests. */
export const fetchedPage = (url: string, html: string): FetchedPage => ({
  requestedUrl: url,
  finalUrl: url,
  status: 200,
  contentType: "text/html",
  body: html,
  bytes: html.length,
  attempts: 1,
  durationMs: 0,
});
