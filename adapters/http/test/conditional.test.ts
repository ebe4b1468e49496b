import { expect } from "chai";
import type { IncomingMessage } from "node:http";
import { after, before, describe, it } from "mocha";
import {
  type FetcherHarness,
  html,
  type Loopback,
  loopbackOnly,
  makeFetcher,
  pageRequest,
  readFailure,
  readPage,
  routes,
  startServer,
  tripped,
} from "./loopback.js";

// Decision 0042: the stored read's validators go to the hop where that read ended, a 304 there is
// "not modified", and the connection survives it.

const etag = '"books-v1"';
const lastModified = "Tue, 21 Nov 2026 10:00:00 GMT";
const page = html("<article class='product_pod'><h3>A Light in the Attic</h3></article>");

describe("http fetcher: conditional reads (loopback servers)", () => {
  let site: Loopback;
  let fetcher: FetcherHarness;
  const seen: Array<{ path: string; ifNoneMatch: string | null; ifModifiedSince: string | null }> = [];
  const note = (request: IncomingMessage) =>
    seen.push({
      path: request.url ?? "",
      ifNoneMatch: request.headers["if-none-match"] ?? null,
      ifModifiedSince: request.headers["if-modified-since"] ?? null,
    });

  before(async () => {
    site = await startServer(
      routes({
        // Answers 304 when the tag matches, like a static-file server.
        "/books": (request, response) => {
          note(request);
          const validators = { etag, "last-modified": lastModified };
          if (request.headers["if-none-match"] === etag) return response.writeHead(304, validators).end();
          response.writeHead(200, { "content-type": "text/html", ...validators }).end(page);
        },
        "/moved": (request, response) => {
          note(request);
          response.writeHead(301, { location: "/books" }).end();
        },
        // A page with no text: refused as empty_body, unless it is the known page itself.
        "/blank": (request, response) => {
          note(request);
          response.writeHead(200, { "content-type": "text/html" }).end(html(""));
        },
        // A 304 nobody asked for.
        "/stale": (request, response) => {
          note(request);
          response.writeHead(304).end();
        },
      }),
    );
    fetcher = makeFetcher(loopbackOnly);
  });
  after(async () => {
    await fetcher.dispose();
    await site.close();
    expect(tripped, "no socket may leave loopback").to.deep.equal([]);
  });

  it("answers a page's ETag and Last-Modified, and a 304 to them as not modified with no body", async () => {
    seen.length = 0;
    const first = await readPage(fetcher, pageRequest(`${site.url}/books`));
    expect(first.validators).to.deep.equal({ etag, lastModified });
    expect(first.notModified).to.equal(undefined);
    const conditional = { url: `${site.url}/books`, etag, lastModified };
    const second = await readPage(fetcher, pageRequest(`${site.url}/books`, { conditional }));
    expect(second).to.deep.include({ status: 304, notModified: true, body: "", finalUrl: `${site.url}/books` });
    expect(seen).to.deep.equal([
      { path: "/books", ifNoneMatch: null, ifModifiedSince: null },
      { path: "/books", ifNoneMatch: etag, ifModifiedSince: lastModified },
    ]);
  });

  it("sends the validators only on the hop where the stored read ended, after a redirect", async () => {
    seen.length = 0;
    const conditional = { url: `${site.url}/books`, etag, lastModified: null };
    const answer = await readPage(fetcher, pageRequest(`${site.url}/moved`, { conditional }));
    expect(answer).to.deep.include({ notModified: true, requestedUrl: `${site.url}/moved` });
    expect(seen).to.deep.equal([
      { path: "/moved", ifNoneMatch: null, ifModifiedSince: null },
      { path: "/books", ifNoneMatch: etag, ifModifiedSince: null },
    ]);
  });

  it("keeps the connection after a 304: the next read reuses it", async () => {
    const before = site.connections;
    const conditional = { url: `${site.url}/books`, etag, lastModified: null };
    for (let i = 0; i < 5; i++) await readPage(fetcher, pageRequest(`${site.url}/books`, { conditional }));
    expect(site.connections - before).to.be.at.most(1);
  });

  it("takes a 2xx whose body is exactly the known page at that URL as judged already, and judges anything else", async () => {
    const blank = `${site.url}/blank`;
    const failure = await readFailure(fetcher, pageRequest(blank));
    expect(failure.failure.reason).to.equal("empty_body");
    const known = await readPage(fetcher, pageRequest(blank, { known: { url: blank, body: html("") } }));
    expect(known).to.deep.include({ status: 200, body: html(""), finalUrl: blank });
    const other = { known: { url: blank, body: html("<p>another version</p>") } };
    expect((await readFailure(fetcher, pageRequest(blank, other))).failure.reason).to.equal("empty_body");
    const elsewhere = { known: { url: `${site.url}/books`, body: html("") } };
    expect((await readFailure(fetcher, pageRequest(blank, elsewhere))).failure.reason).to.equal("empty_body");
  });

  it("a 304 to a read that sent no validators is an http_error, never a page", async () => {
    const failure = await readFailure(fetcher, pageRequest(`${site.url}/stale`));
    expect(failure.failure).to.deep.include({ reason: "http_error", status: 304 });
  });
});
