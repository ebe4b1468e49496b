// A local books.toscrape.com: a real HTTP server on 127.0.0.1 (ephemeral port) that renders the
// fixture books with the real site's markup, plus a typed control object for mutations between runs.
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type Book, type BookRef, findBook, loadBooks, parsePrice } from "./books-data.js";
import { type Category, type RenderMode, renderListingPage } from "./books-markup.js";
import { renderChallengePage, renderDetailPage, renderErrorPage, renderLoginPage } from "./books-pages.js";

/** How a blocked page answers (the names are the spec's readFailure reasons). */
export type BlockMode =
  | "forbidden" // 403
  | "rate_limited" // 429 + Retry-After
  | "challenge" // Cloudflare-like "Just a moment..." page, status 503 (or as given)
  | "login_redirect" // 302 to /login?next=..., which serves a form with a password input
  | "empty_body" // 200 text/html with an empty body
  | "connection_reset"; // the socket is destroyed before any response

export interface BlockOptions {
  /** `challenge` only: the status of the challenge page (default 503; Cloudflare also uses 403, some setups 200). */
  readonly status?: 200 | 403 | 503;
  /** `rate_limited` only: the Retry-After header value in seconds (default 1). */
  readonly retryAfter?: number;
}

export type RequestKind = "listing" | "detail" | "robots" | "login" | "asset" | "not_found";

export interface RequestRecord {
  readonly method: string;
  /** Path and query as requested, e.g. `/catalogue/page-2.html`. */
  readonly path: string;
  /** The status sent; 0 when the connection was reset instead. */
  readonly status: number;
  readonly kind: RequestKind;
  readonly userAgent: string | null;
  /** The request's If-None-Match / If-Modified-Since, when it sent either (a conditional read). */
  readonly conditional?: { readonly ifNoneMatch: string | null; readonly ifModifiedSince: string | null };
}

export interface BooksSiteOptions {
  /** `static` (default): items in the HTML. `script`: `ol.row` empty, filled by an inline script. */
  readonly render?: RenderMode;
  /** The catalogue (default: the 1000 fixture books). */
  readonly books?: readonly Book[];
  /** Books per listing page (default 20). */
  readonly pageSize?: number;
  /** Body of /robots.txt; null answers 404 (default: allow everything). */
  readonly robots?: string | null;
  /** Delay before every response, in ms (default 0). */
  readonly delayMs?: number;
  /** Port on 127.0.0.1 (default 0: ephemeral). */
  readonly port?: number;
  /**
   * Listing pages carry an ETag (a digest of the page) and a Last-Modified (when that version was
   * first served), as static-file servers send. `honoured`: a request whose If-None-Match (or else
   * If-Modified-Since) still matches gets 304 Not Modified with no body. `ignored`: always 200.
   * Default: no validators.
   */
  readonly validators?: "honoured" | "ignored";
}

export interface BooksSite {
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  readonly url: string;
  readonly render: RenderMode;
  /** The catalogue as served now (copies; position/page/index_on_page follow removals). */
  readonly books: readonly Book[];
  readonly pageCount: number;
  /** `${url}/catalogue/page-{page}.html`, for url-pattern pagination. */
  readonly urlPattern: string;
  /** Absolute URL of listing page n (page 1 is `/index.html`'s twin `/catalogue/page-1.html`). */
  pageUrl(page: number): string;
  /** Change a book's price text (`"£1.00"`; a number n becomes `£n.nn`). */
  setPrice(book: BookRef, price: string | number): void;
  removeBook(book: BookRef): void;
  restoreBook(book: BookRef): void;
  /** Block listing page n (page 1 covers `/`, `/index.html`, `/catalogue/page-1.html`), or every page. */
  blockPage(page: number | "all", mode: BlockMode, options?: BlockOptions): void;
  /** `"all"` lifts every block. */
  unblockPage(page: number | "all"): void;
  /** Sitewide selector drift: the price renders as `p.price` instead of `p.price_color`. */
  driftSelectors(on?: boolean): void;
  /** Give all these books one title (default: the first one's). */
  collideTitles(books: readonly BookRef[], title?: string): void;
  setRobots(text: string | null): void;
  setDelay(ms: number): void;
  /** Undo every mutation, block, drift, robots and delay change (the request log is kept). */
  reset(): void;
  /** Every request so far, in arrival order. */
  readonly requests: readonly RequestRecord[];
  readonly requestCount: number;
  clearRequests(): void;
  close(): Promise<void>;
}

/** Selectors that read this site (and the real one); `endSelector` matches only on the last page. */
export const BOOKS_SELECTORS = {
  item: "article.product_pod",
  title: "h3 > a", // attribute `title`; the text is truncated
  link: "h3 > a", // attribute `href`
  price: "p.price_color",
  driftedPrice: "p.price",
  rating: "p.star-rating", // second class: One..Five
  availability: "p.instock.availability",
  nextLink: "li.next > a",
  endSelector: "li.current.last-page",
} as const;

/** The addresses of a books site served at `url` (this server, or one another process started). */
export const booksSiteAddresses = (url: string): Pick<BooksSite, "url" | "urlPattern" | "pageUrl"> => ({
  url,
  urlPattern: `${url}/catalogue/page-{page}.html`,
  pageUrl: (page) => `${url}/catalogue/page-${page}.html`,
});

export const DEFAULT_ROBOTS = "User-agent: *\nDisallow:\n";

interface Block {
  readonly mode: BlockMode;
  readonly options: BlockOptions;
}

type Route =
  | { readonly kind: "listing"; readonly page: number; readonly atRoot: boolean }
  | { readonly kind: "detail"; readonly book: Book }
  | { readonly kind: "robots" | "login" | "asset" | "not_found" };

// 1×1 transparent GIF for every image under /media and /static.
const PIXEL = Buffer.from("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7", "base64");
const HTML = "text/html; charset=utf-8";

export async function startBooksSite(options: BooksSiteOptions = {}): Promise<BooksSite> {
  const render: RenderMode = options.render ?? "static";
  const pageSize = options.pageSize ?? 20;
  if (!Number.isInteger(pageSize) || pageSize < 1) throw new Error(`pageSize must be a positive integer`);
  const original: readonly Book[] = (options.books ?? loadBooks()).map((b) => ({ ...b }));
  const categories = categoriesOf(original);

  const prices = new Map<number, string>();
  const titles = new Map<number, string>();
  const removed = new Set<number>();
  const blocks = new Map<number, Block>();
  let blockAll: Block | undefined;
  let drift = false;
  let robots: string | null = options.robots === undefined ? DEFAULT_ROBOTS : options.robots;
  let delayMs = options.delayMs ?? 0;
  const log: RequestRecord[] = [];
  /** When each listing version (by ETag) was first served: its Last-Modified. */
  const firstServed = new Map<string, Date>();

  const current = (): Book[] =>
    original
      .filter((b) => !removed.has(b.book_id))
      .map((b, i) => {
        const price = prices.get(b.book_id) ?? b.price;
        return {
          ...b,
          position: i + 1,
          page: Math.floor(i / pageSize) + 1,
          index_on_page: (i % pageSize) + 1,
          title: titles.get(b.book_id) ?? b.title,
          price,
          price_gbp: price === b.price ? b.price_gbp : parsePrice(price),
        };
      });
  const pageCountOf = (books: readonly Book[]) => Math.max(1, Math.ceil(books.length / pageSize));
  const known = (ref: BookRef): Book => {
    const book = findBook(original, ref);
    if (book === undefined) throw new Error(`books site: no book with id, upc or slug ${String(ref)}`);
    return book;
  };

  const route = (path: string, books: readonly Book[]): Route => {
    if (path === "/" || path === "/index.html") return { kind: "listing", page: 1, atRoot: true };
    if (path === "/robots.txt") return { kind: "robots" };
    if (path === "/login") return { kind: "login" };
    if (path.startsWith("/static/") || path.startsWith("/media/")) return { kind: "asset" };
    const listing = /^\/catalogue\/page-([1-9]\d*)\.html$/.exec(path);
    if (listing?.[1] !== undefined) {
      const page = Number(listing[1]);
      return page <= pageCountOf(books) ? { kind: "listing", page, atRoot: false } : { kind: "not_found" };
    }
    const detail = /^\/catalogue\/([^/]+)\/index\.html$/.exec(path);
    const book = detail?.[1] === undefined ? undefined : books.find((b) => b.slug === detail[1]);
    return book === undefined ? { kind: "not_found" } : { kind: "detail", book };
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const method = req.method ?? "GET";
    const target = req.url ?? "/";
    const path = target.split("?")[0] ?? "/";
    const books = current();
    const r = route(path, books);
    const ifNoneMatch = req.headers["if-none-match"] ?? null;
    const ifModifiedSince = req.headers["if-modified-since"] ?? null;
    const conditional = ifNoneMatch !== null || ifModifiedSince !== null ? { ifNoneMatch, ifModifiedSince } : null;
    const record = (status: number) =>
      log.push({
        method,
        path: target,
        status,
        kind: r.kind,
        userAgent: req.headers["user-agent"] ?? null,
        ...(conditional ? { conditional } : {}),
      });
    const send = (status: number, body: string | Buffer, headers: Record<string, string | number> = {}) => {
      record(status);
      const bytes = typeof body === "string" ? Buffer.from(body, "utf8") : body;
      res.writeHead(status, { "Content-Type": HTML, "Content-Length": bytes.length, ...headers });
      res.end(method === "HEAD" ? undefined : bytes);
    };

    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    if (method !== "GET" && method !== "HEAD" && !(method === "POST" && r.kind === "login")) {
      send(405, renderErrorPage(405, "Method Not Allowed"), { Allow: "GET, HEAD" });
      return;
    }
    const block = r.kind === "listing" ? (blocks.get(r.page) ?? blockAll) : r.kind === "detail" ? blockAll : undefined;
    if (block !== undefined) {
      switch (block.mode) {
        case "forbidden":
          return send(403, renderErrorPage(403, "Forbidden"));
        case "rate_limited":
          return send(429, renderErrorPage(429, "Too Many Requests"), {
            "Retry-After": String(block.options.retryAfter ?? 1),
          });
        case "challenge":
          return send(block.options.status ?? 503, renderChallengePage(req.headers.host ?? "127.0.0.1"), {
            Server: "cloudflare",
            "cf-mitigated": "challenge",
            "cf-ray": "8f2b1c3d4e5a6b7c-LHR",
            "Cache-Control": "private, max-age=0, no-store, no-cache, must-revalidate",
          });
        case "login_redirect":
          return send(302, "", { Location: `/login?next=${encodeURIComponent(path)}` });
        case "empty_body":
          return send(200, "");
        case "connection_reset":
          record(0);
          req.socket.destroy();
          return;
      }
    }
    switch (r.kind) {
      case "listing": {
        const offset = (r.page - 1) * pageSize;
        const html = renderListingPage({
          books: books.slice(offset, offset + pageSize),
          page: r.page,
          pageCount: pageCountOf(books),
          total: books.length,
          offset,
          atRoot: r.atRoot,
          render,
          priceClass: drift ? "price" : "price_color",
          categories,
        });
        if (options.validators === undefined) return send(200, html);
        const etag = `"${createHash("sha256").update(html).digest("hex").slice(0, 32)}"`;
        const modified = firstServed.get(etag) ?? new Date(Math.floor(Date.now() / 1000) * 1000);
        firstServed.set(etag, modified);
        const validators = { ETag: etag, "Last-Modified": modified.toUTCString() };
        const unchanged =
          ifNoneMatch !== null
            ? ifNoneMatch.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag)
            : ifModifiedSince !== null && modified.getTime() <= Date.parse(ifModifiedSince);
        if (options.validators === "honoured" && unchanged) {
          record(304);
          res.writeHead(304, validators);
          return void res.end();
        }
        return send(200, html, validators);
      }
      case "detail":
        return send(200, renderDetailPage(r.book, drift ? "price" : "price_color"));
      case "robots":
        return robots === null
          ? send(404, renderErrorPage(404, "Not Found"))
          : send(200, robots, { "Content-Type": "text/plain; charset=utf-8" });
      case "login": {
        const next = new URL(target, "http://x").searchParams.get("next") ?? "/";
        return send(200, renderLoginPage(next));
      }
      case "asset":
        return send(200, assetBody(path), { "Content-Type": assetType(path) });
      case "not_found":
        return send(404, renderErrorPage(404, "Not Found"));
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "Content-Type": "text/plain; charset=utf-8" });
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;

  return {
    render,
    get books() {
      return current();
    },
    get pageCount() {
      return pageCountOf(current());
    },
    ...booksSiteAddresses(url),
    setPrice(ref, price) {
      prices.set(known(ref).book_id, typeof price === "number" ? `£${price.toFixed(2)}` : price);
    },
    removeBook(ref) {
      removed.add(known(ref).book_id);
    },
    restoreBook(ref) {
      removed.delete(known(ref).book_id);
    },
    blockPage(page, mode, blockOptions = {}) {
      if (page === "all") blockAll = { mode, options: blockOptions };
      else if (Number.isInteger(page) && page >= 1) blocks.set(page, { mode, options: blockOptions });
      else throw new Error(`books site: no page ${page}`);
    },
    unblockPage(page) {
      if (page !== "all") return void blocks.delete(page);
      blocks.clear();
      blockAll = undefined;
    },
    driftSelectors(on = true) {
      drift = on;
    },
    collideTitles(refs, title) {
      const [first, ...rest] = refs.map(known);
      if (first === undefined || (title === undefined && rest.length === 0)) {
        throw new Error("books site: collideTitles needs two books, or one book and a title");
      }
      const shared = title ?? titles.get(first.book_id) ?? first.title;
      for (const b of [first, ...rest]) titles.set(b.book_id, shared);
    },
    setRobots(text) {
      robots = text;
    },
    setDelay(ms) {
      delayMs = ms;
    },
    reset() {
      prices.clear();
      titles.clear();
      removed.clear();
      blocks.clear();
      blockAll = undefined;
      drift = false;
      robots = options.robots === undefined ? DEFAULT_ROBOTS : options.robots;
      delayMs = options.delayMs ?? 0;
    },
    get requests() {
      return [...log];
    },
    get requestCount() {
      return log.length;
    },
    clearRequests() {
      log.length = 0;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

/** The 50 categories of the sidebar, in category_id order (as on the real site). */
function categoriesOf(books: readonly Book[]): Category[] {
  const byId = new Map<number, Category>();
  for (const b of books)
    if (!byId.has(b.category_id)) byId.set(b.category_id, { slug: b.category_slug, name: b.category });
  return [...byId.entries()].sort((a, b) => a[0] - b[0]).map(([, c]) => c);
}

function assetType(path: string): string {
  if (path.endsWith(".css")) return "text/css; charset=utf-8";
  if (path.endsWith(".js")) return "text/javascript; charset=utf-8";
  return "image/gif";
}

function assetBody(path: string): Buffer {
  return path.endsWith(".css") || path.endsWith(".js") ? Buffer.alloc(0) : PIXEL;
}
