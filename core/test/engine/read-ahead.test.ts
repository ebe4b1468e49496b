import { parseWithHtmlparser2 } from "@gleaner/htmlparser2";
import { expect } from "chai";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as Schema from "effect/Schema";
import { describe, it } from "mocha";
import { readSource } from "../../src/engine/read.js";
import { TraceRecorder } from "../../src/engine/trace.js";
import {
  type DatasetColumn,
  type DocumentElement,
  DocumentParser,
  Fetcher,
  type ParsedDocument,
  ReadFailed,
  Source,
} from "../../src/index.js";
import { fetchedPage } from "./fetched-page.js";
import { body, item, page, site } from "./shop-site.js";

const threePages: Record<string, string> = {
  [`${site}/p1`]: page(item(1, "£1.00") + item(2, "£2.00"), "/p2"),
  [`${site}/p2`]: page(item(3, "£3.00"), "/p3"),
  [`${site}/p3`]: page(item(4, "£4.00"), null),
};

const columns = body.columns.map((c) => ({ ...c, id: `col-${c.name}` })) as unknown as DatasetColumn[];

/**
 * Reads the shop's pages with a fetcher and a parser that note, in order, each page's read and the
 * start of each page's extraction (its first item excerpt).
 */
const readWithEvents = async (
  pages: Record<string, string>,
  overrides: Record<string, unknown> = {},
  refused: ReadonlySet<string> = new Set(),
) => {
  const events: string[] = [];
  const path = (url: string) => url.slice(site.length);
  const fetcher = Layer.succeed(Fetcher, {
    read: (request) =>
      Effect.suspend(() => {
        events.push(`read ${path(request.url)}`);
        const html = pages[request.url];
        if (refused.has(request.url) || html === undefined) {
          const failure = { reason: "forbidden" as const, status: 403, finalUrl: site };
          return Effect.fail(new ReadFailed({ failure, message: `${request.url} answered 403.`, attempts: 1 }));
        }
        return Effect.succeed(fetchedPage(request.url, html));
      }),
  });
  const noting = (element: DocumentElement, url: string, seen: { extracting: boolean }): DocumentElement => ({
    select: (selector) => element.select(selector),
    first: (selector) => element.first(selector),
    text: () => element.text(),
    attribute: (name) => element.attribute(name),
    excerpt: (maxBytes) => {
      if (!seen.extracting) events.push(`extract ${path(url)}`);
      seen.extracting = true;
      return element.excerpt(maxBytes);
    },
  });
  const parser = Layer.succeed(DocumentParser, {
    parse: (html, url) =>
      Effect.map(parseWithHtmlparser2(html, url), (document): ParsedDocument => {
        const seen = { extracting: false };
        const root = document.root;
        return { ...document, root: { ...root, select: (s) => root.select(s).map((e) => noting(e, url, seen)) } };
      }),
  });
  const source = Schema.decodeUnknownSync(Source)({ ...body.source, ...overrides });
  const outcome = await Effect.runPromise(
    readSource(source, columns, new TraceRecorder("attempt")).pipe(Effect.provide(Layer.merge(fetcher, parser))),
  );
  return { events, outcome };
};

describe("run engine: the next page is read while this page is extracted", () => {
  it("asks for the next page before extracting the current one, in pagination order, one read each", async () => {
    const { events, outcome } = await readWithEvents(threePages);
    expect(events).to.deep.equal(["read /p1", "read /p2", "extract /p1", "read /p3", "extract /p2", "extract /p3"]);
    expect(outcome.records.map((r) => r.rowKey)).to.deep.equal([1, 2, 3, 4].map((n) => `${site}/b/${n}`));
    expect(outcome.coverage).to.deep.equal({ complete: true });
  });

  it("reads no page the run would not have read: maxPages, maxItems and a link back", async () => {
    const maxPages = await readWithEvents(threePages, { maxPages: 2 });
    expect(maxPages.events.filter((e) => e.startsWith("read"))).to.deep.equal(["read /p1", "read /p2"]);
    expect(maxPages.outcome.coverage.complete).to.equal(false);

    const maxItems = await readWithEvents(threePages, { maxItems: 1 });
    expect(maxItems.events.filter((e) => e.startsWith("read"))).to.deep.equal(["read /p1"]);
    expect(maxItems.outcome.records).to.have.length(1);

    const loop = {
      [`${site}/p1`]: page(item(1, "£1.00"), "/p2"),
      [`${site}/p2`]: page(item(2, "£2.00"), "/p1"),
    };
    const back = await readWithEvents(loop);
    expect(back.events.filter((e) => e.startsWith("read"))).to.deep.equal(["read /p1", "read /p2"]);
    expect(back.outcome.coverage).to.deep.equal({ complete: true });
  });

  it("a failed read ahead ends the reading after the page before it, as a read in its turn would", async () => {
    const { events, outcome } = await readWithEvents(threePages, {}, new Set([`${site}/p3`]));
    expect(events).to.deep.equal(["read /p1", "read /p2", "extract /p1", "read /p3", "extract /p2"]);
    expect(outcome.records.map((r) => r.rowKey)).to.deep.equal([1, 2, 3].map((n) => `${site}/b/${n}`));
    expect(outcome.failures.map((f) => [f.url, f.failure.reason])).to.deep.equal([[`${site}/p3`, "forbidden"]]);
    expect(outcome.coverage.complete).to.equal(false);
  });
});
