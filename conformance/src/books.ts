import { expect } from "chai";
import type { Body } from "./bodies.js";
import type { Client } from "./client.js";
import { BOOKS_SELECTORS, type BooksSite } from "./sites/index.js";

/** A dataset over the local books site: identity = the book's link, price required and numeric. */
export const booksDataset = (
  site: Pick<BooksSite, "url" | "urlPattern" | "pageUrl">,
  pagination: "next-link" | "url-pattern" = "next-link",
  edit: (body: Body) => void = () => {},
): Body => {
  const body: Body = {
    name: `Books ${globalThis.crypto.randomUUID().slice(0, 8)}`,
    columns: [
      { name: "link", type: "string", key: true },
      { name: "title", type: "string" },
      { name: "price", type: "number" },
      { name: "rating", type: "string" },
      { name: "availability", type: "string" },
      { name: "notes", type: "string", ownership: "user" },
    ],
    source: {
      version: 1,
      url: pagination === "next-link" ? `${site.url}/index.html` : site.pageUrl(1),
      itemSelector: BOOKS_SELECTORS.item,
      fields: [
        { name: "link", read: { selector: BOOKS_SELECTORS.link, kind: "attribute", attribute: "href" } },
        {
          name: "title",
          read: { selector: BOOKS_SELECTORS.title, kind: "attribute", attribute: "title" },
          required: true,
        },
        { name: "price", read: { selector: BOOKS_SELECTORS.price }, required: true },
        { name: "rating", read: { selector: BOOKS_SELECTORS.rating, kind: "attribute", attribute: "class" } },
        { name: "availability", read: { selector: BOOKS_SELECTORS.availability } },
      ],
      identity: { kind: "source-key", field: "link" },
      pagination:
        pagination === "next-link"
          ? { kind: "next-link", selector: BOOKS_SELECTORS.nextLink }
          : { kind: "url-pattern", pattern: site.urlPattern, startPage: 1, endSelector: BOOKS_SELECTORS.endSelector },
      maxPages: 50,
    },
  };
  edit(body);
  return body;
};

const terminal = new Set(["succeeded", "failed", "blocked", "held"]);

/** Starts a run and waits for it to finish; returns the finished run. */
export const runToEnd = async (client: Client, datasetId: string, timeoutMs = 60_000): Promise<Body> => {
  const started = await client.post(`/v1/datasets/${datasetId}/runs`);
  expect(started.status, JSON.stringify(started.body)).to.equal(202);
  return waitForRun(client, started.body.runId, timeoutMs);
};

export const waitForRun = async (client: Client, runId: string, timeoutMs = 60_000): Promise<Body> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await client.get(`/v1/runs/${runId}`);
    expect(answer.status).to.equal(200);
    if (terminal.has(answer.body.run.status)) return answer.body.run;
    if (Date.now() > deadline)
      throw new Error(`Run ${runId} is still ${answer.body.run.status} after ${timeoutMs} ms.`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
};

export const columnId = (dataset: Body, name: string): string => dataset.columns.find((c: Body) => c.name === name).id;
