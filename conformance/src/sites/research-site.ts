import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A small loopback site about publishers, for research runs: two article pages linked by a
 * "next" link, each with navigation and boilerplate around the article. Under /blocked/ the second
 * page answers 403. The same publisher appears under two names (Harbour & Finch Press, H&F Press).
 * robots.txt disallows /private/, whose page a search result may still point at.
 */
const layout = (title: string, article: string, next: string | null) => `<!doctype html>
<html><head><title>${title}</title><script>var analytics = "Phantom House 99 titles";</script></head>
<body>
<nav><a href="/">Home</a> <a href="/about">About the catalogue</a> <a href="/contact">Contact</a></nav>
<main><article><h1>${title}</h1>${article}</article></main>
${next ? `<p><a class="next" href="${next}">Next page</a></p>` : ""}
<footer><p>Copyright 2026 Northwind Catalogue. All rights reserved.</p></footer>
</body></html>`;

const pageOne = `
<p>Harbour &amp; Finch Press, often shortened to H&amp;F Press, is based in Bristol, England. The catalogue
lists 14 titles from the press, most of them poetry collections published since 2001.</p>
<p>Lindqvist Förlag is a family publisher in Göteborg, Sweden. Its crime fiction list is small but well loved.</p>`;

const pageTwo = `
<p>H&amp;F Press also publishes translated fiction from its office in Bristol.</p>
<p>Kestrel Books, based in Leeds, has 22 titles in the catalogue, chiefly natural history.</p>`;

/** How many publishers the long page lists: far more text than one request of a small model carries. */
export const longPageCount = 120;
const longPage = Array.from(
  { length: longPageCount },
  (_, i) =>
    `<p>Publisher ${i + 1} Press is based in Town ${i + 1}. The catalogue lists ${10 + (i % 40)} titles from Publisher ${i + 1} Press, ` +
    "most of them reprints of out-of-print local history, with a few new titles each spring.</p>",
).join("\n");

export interface ResearchSite {
  readonly url: string;
  /** Paths under /private/ that were requested (robots.txt disallows them: none should be). */
  readonly reads: ReadonlyArray<string>;
  /** Page n (1 or 2) of the open site, or of the blocked one. */
  readonly page: (n: 1 | 2, blocked?: boolean) => string;
  readonly close: () => Promise<void>;
}

export const startResearchSite = async (): Promise<ResearchSite> => {
  const reads: string[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = req.url ?? "/";
    const html = (body: string) => res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(body);
    if (path === "/robots.txt")
      return res.writeHead(200, { "content-type": "text/plain" }).end("User-agent: *\nDisallow: /private/\n");
    if (path === "/long/publishers") return html(layout("Every publisher in the catalogue", longPage, null));
    if (path === "/private/publishers") {
      reads.push(path);
      return html(layout("Private publishers", pageTwo, null));
    }
    const match = /^\/(open|blocked)\/publishers\/([12])$/.exec(path);
    if (!match) return res.writeHead(404).end("Not found");
    const [, set, n] = match;
    if (n === "1") return html(layout("Publishers in the catalogue", pageOne, `/${set}/publishers/2`));
    if (set === "blocked") return res.writeHead(403, { "content-type": "text/html" }).end("<h1>Forbidden</h1>");
    return html(layout("More publishers", pageTwo, null));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    reads,
    page: (n, blocked = false) => `${url}/${blocked ? "blocked" : "open"}/publishers/${n}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};

type SearchResult = { url: string; title: string; content: string };

type Results = ReadonlyArray<SearchResult> | ((query: string) => ReadonlyArray<SearchResult>);

/**
 * A loopback server answering SearXNG's `/search?format=json` with the results set (`answer`): the
 * same for every query, or chosen by the query.
 */
export const startSearxngStub = async (initial: Results) => {
  const queries: string[] = [];
  let answering = initial;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (url.pathname !== "/search" || url.searchParams.get("format") !== "json") return res.writeHead(403).end();
    const query = url.searchParams.get("q") ?? "";
    queries.push(query);
    const results = typeof answering === "function" ? answering(query) : answering;
    res
      .writeHead(200, { "content-type": "application/json" })
      .end(JSON.stringify({ query: url.searchParams.get("q"), number_of_results: results.length, results }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    queries,
    /** Answers every later query with `next` (the initial results when called without). */
    answer: (next: Results = initial) => {
      answering = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};

export type SearxngStub = Awaited<ReturnType<typeof startSearxngStub>>;
