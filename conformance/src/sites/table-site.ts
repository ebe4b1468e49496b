// A catalogue served as an old-style HTML table: the fixture books, 50 rows a page, with a header
// row, a sidebar of category links and a "Next »" link, on a real HTTP server on 127.0.0.1. Suggestions
// must find the rows (not the sidebar) and read them; only some cells carry a class, as in much
// hand-written markup, so the rest can be read only through what they hold.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { type Book, loadBooks } from "./books-data.js";
import { escapeHtml } from "./books-markup.js";

export interface TableSite {
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  readonly url: string;
  /** Listing page n (1-based). */
  pageUrl(page: number): string;
  readonly pageCount: number;
  readonly books: readonly Book[];
  /** A path robots.txt disallows, holding the same table. */
  readonly disallowedUrl: string;
  /** A path that redirects to a private address (the read guard must refuse to follow it). */
  readonly redirectsToPrivateUrl: string;
  close(): Promise<void>;
}

const rowsPerPage = 50;

const table = (books: readonly Book[]) => `<table class="catalogue" border="1" cellpadding="3">
<thead><tr><th>Title</th><th>Price</th><th>Availability</th><th>Rating</th></tr></thead>
<tbody>
${books
  .map(
    (b) =>
      `<tr><td><a href="/${escapeHtml(b.product_path)}">${escapeHtml(b.title)}</a></td><td class="price" align="right">${escapeHtml(b.price)}</td><td class="stock">${escapeHtml(b.availability)}</td><td>${b.rating}</td></tr>`,
  )
  .join("\n")}
</tbody>
</table>`;

const page = (books: readonly Book[], n: number, pages: number, categories: readonly string[]) => `<!DOCTYPE html>
<html><head><title>Catalogue, page ${n} of ${pages}</title></head>
<body>
<table width="100%"><tr>
<td valign="top" width="180"><div id="sidebar"><b>Categories</b><ul>
${categories.map((c) => `<li><a href="/category/${encodeURIComponent(c)}.html">${escapeHtml(c)}</a></li>`).join("\n")}
</ul></div></td>
<td valign="top"><h1>Catalogue</h1><p>Page ${n} of ${pages}.</p>
${table(books)}
<p class="pages">${n > 1 ? `<a class="prev" href="/catalogue/table-${n - 1}.html">« Previous</a> ` : ""}${n < pages ? `<a class="next" href="/catalogue/table-${n + 1}.html">Next »</a>` : ""}</p>
</td></tr></table>
<p><small>Fixture data from books.toscrape.com, a sandbox for scraping.</small></p>
</body></html>`;

export async function startTableSite(): Promise<TableSite> {
  const books = loadBooks();
  const pages = Math.ceil(books.length / rowsPerPage);
  const categories = [...new Set(books.map((b) => b.category))].sort();
  const listing = (n: number) => page(books.slice((n - 1) * rowsPerPage, n * rowsPerPage), n, pages, categories);
  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    const html = { "content-type": "text/html; charset=utf-8" };
    if (path === "/robots.txt")
      return res.writeHead(200, { "content-type": "text/plain" }).end("User-agent: *\nDisallow: /private/\n");
    if (path === "/moved") return res.writeHead(302, { location: "http://10.255.255.1/catalogue.html" }).end();
    if (path === "/private/table.html") return res.writeHead(200, html).end(listing(1));
    const match = /^\/catalogue\/table-(\d+)\.html$/.exec(path);
    const n = match ? Number(match[1]) : 0;
    if (n >= 1 && n <= pages) return res.writeHead(200, html).end(listing(n));
    res.writeHead(404, html).end("<html><body><h1>Not found</h1></body></html>");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    pageUrl: (n) => `${url}/catalogue/table-${n}.html`,
    pageCount: pages,
    books,
    disallowedUrl: `${url}/private/table.html`,
    redirectsToPrivateUrl: `${url}/moved`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
