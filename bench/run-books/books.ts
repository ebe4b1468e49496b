// The Gleaner side of the books bench: the conformance suite's dataset body over the site.
import { booksDataset as conformanceBooksDataset, booksSiteAddresses } from "@gleaner/conformance";
import { PAGES } from "./crawl-rows.js";

/** The Gleaner dataset of the conformance suite: identity = the book's link, title and price required. */
export const booksDataset = (siteUrl: string) =>
  conformanceBooksDataset(booksSiteAddresses(siteUrl), "next-link", (body) => {
    body.name = `Books bench ${globalThis.crypto.randomUUID().slice(0, 8)}`;
    body.source.maxPages = PAGES;
  });
