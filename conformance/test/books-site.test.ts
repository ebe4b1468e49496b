import { readFileSync } from "node:fs";
import { runInNewContext } from "node:vm";
import { expect } from "chai";
import { BOOKS_SELECTORS, type BooksSite, loadBooks, startBooksSite } from "../src/sites/index.js";

const fixture = (name: string) => readFileSync(new URL(`../fixtures/books/${name}`, import.meta.url), "utf8");
const unescapeHtml = (s: string) =>
  s
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");

interface Item {
  readonly href: string;
  readonly title: string;
}
/** What a static reader sees: `h3 > a[href][title]` of every product pod. */
function items(html: string): Item[] {
  return [...html.matchAll(/<h3><a href="([^"]*)" title="([^"]*)">/g)].map((m) => ({
    href: m[1] ?? "",
    title: unescapeHtml(m[2] ?? ""),
  }));
}
const pods = (html: string) => html.match(/<article class="product_pod">/g)?.length ?? 0;
const prices = (html: string) => [...html.matchAll(/<p class="price_color">([^<]*)<\/p>/g)].map((m) => m[1]);
const nextHref = (html: string) => /<li class="next"><a href="([^"]*)">next<\/a><\/li>/.exec(html)?.[1];
const isLastPage = (html: string) => /<li class="current last-page">/.test(html);

async function get(site: BooksSite, path: string, init?: RequestInit) {
  const res = await fetch(site.url + path, init);
  return { res, html: await res.text() };
}

describe("books fixture site", () => {
  const books = loadBooks();
  let site: BooksSite;

  before(async () => {
    site = await startBooksSite();
  });
  after(async () => {
    await site.close();
  });
  afterEach(() => {
    site.reset();
    site.clearRequests();
  });

  it("ships the 1000 fixture books", () => {
    expect(books).to.have.length(1000);
    expect(new Set(books.map((b) => b.upc)).size).to.equal(1000);
    expect(site.url).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(site.pageCount).to.equal(50);
  });

  it("serves catalogue page 1 at / with 20 product pods, titles and prices in books.json order", async () => {
    const { res, html } = await get(site, "/");
    expect(res.status).to.equal(200);
    expect(res.headers.get("content-type")).to.equal("text/html; charset=utf-8");
    expect(pods(html)).to.equal(20);
    expect(items(html).map((i) => i.title)).to.deep.equal(books.slice(0, 20).map((b) => b.title));
    expect(prices(html)).to.deep.equal(books.slice(0, 20).map((b) => b.price));
    expect(prices(html)[0]).to.equal("£51.77");
    expect(html).to.include('<p class="star-rating Three">');
    expect(html).to.include('<p class="instock availability">');
    expect(html).to.include("Page 1 of 50");
    expect(items(html)[0]?.href).to.equal("catalogue/a-light-in-the-attic_1000/index.html");
    expect(nextHref(html)).to.equal("catalogue/page-2.html");
    expect(html).not.to.include('class="previous"');
    expect(Buffer.byteLength(html)).to.be.within(35_000, 45_000);
  });

  it("reproduces the saved index.html byte for byte, apart from thumbnails and the left-out scripts", async () => {
    const mask = (s: string) => s.replace(/src="[^"]*media\/cache\/[^"]*"/g, 'src="IMG"');
    const real = mask(fixture("index.html"));
    const { html } = await get(site, "/index.html");
    const cut = real.indexOf("            <!-- jQuery -->");
    expect(cut).to.be.greaterThan(30_000);
    expect(mask(html).slice(0, cut)).to.equal(real.slice(0, cut));
  });

  it("serves /catalogue/page-N.html with links relative to /catalogue/", async () => {
    const { html } = await get(site, "/catalogue/page-2.html");
    expect(items(html).map((i) => i.title)).to.deep.equal(books.slice(20, 40).map((b) => b.title));
    expect(items(html)[0]?.href).to.equal(`${books[20]?.slug}/index.html`);
    expect(html).to.include('<li class="previous"><a href="page-1.html">previous</a></li>');
    expect(nextHref(html)).to.equal("page-3.html");
    expect(html).to.include("showing <strong>21</strong> to <strong>40</strong>");
    expect(html).to.include('href="../static/oscar/css/styles.css"');
    const page1 = await get(site, "/catalogue/page-1.html");
    expect(items(page1.html).map((i) => i.title)).to.deep.equal(books.slice(0, 20).map((b) => b.title));
    expect(nextHref(page1.html)).to.equal("page-2.html");
  });

  it("marks only the last page: no next link, li.current.last-page, Page 50 of 50", async () => {
    const last = await get(site, "/catalogue/page-50.html");
    expect(pods(last.html)).to.equal(20);
    expect(nextHref(last.html)).to.equal(undefined);
    expect(last.html).not.to.include('class="next"');
    expect(isLastPage(last.html)).to.equal(true);
    expect(last.html).to.match(/Page 50 of 50/);
    expect(BOOKS_SELECTORS.endSelector).to.equal("li.current.last-page");
    for (const n of [1, 2, 49]) expect(isLastPage((await get(site, `/catalogue/page-${n}.html`)).html)).to.equal(false);
    expect((await get(site, "/catalogue/page-51.html")).res.status).to.equal(404);
    expect((await get(site, "/catalogue/page-0.html")).res.status).to.equal(404);
  });

  it("follows the next-link chain through 50 pages and 1000 distinct books", async () => {
    let url: string | undefined = `${site.url}/`;
    const seen = new Set<string>();
    let pages = 0;
    while (url !== undefined) {
      const res = await fetch(url);
      expect(res.status).to.equal(200);
      const html = await res.text();
      pages++;
      for (const item of items(html)) seen.add(new URL(item.href, url).pathname);
      const next = nextHref(html);
      url = next === undefined ? undefined : new URL(next, url).href;
    }
    expect(pages).to.equal(50);
    expect(seen.size).to.equal(1000);
    expect(seen.has("/catalogue/a-light-in-the-attic_1000/index.html")).to.equal(true);
    expect(site.requestCount).to.equal(50);
    expect(site.requests.map((r) => r.path)).to.deep.equal([
      "/",
      "/catalogue/page-2.html",
      ...Array.from({ length: 48 }, (_, i) => `/catalogue/page-${i + 3}.html`),
    ]);
  });

  it("supports url-pattern pagination ending where the endSelector matches", async () => {
    expect(site.urlPattern).to.equal(`${site.url}/catalogue/page-{page}.html`);
    const titles: string[] = [];
    let endedAt = 0;
    for (let page = 1; page <= 60 && endedAt === 0; page++) {
      const { res, html } = await get(site, new URL(site.urlPattern.replace("{page}", String(page))).pathname);
      expect(res.status).to.equal(200);
      titles.push(...items(html).map((i) => i.title));
      if (isLastPage(html)) endedAt = page;
    }
    expect(endedAt).to.equal(50);
    expect(titles).to.deep.equal(books.map((b) => b.title));
  });

  it("serves detail pages, robots.txt, and 404 for anything else", async () => {
    const detail = await get(site, "/catalogue/a-light-in-the-attic_1000/index.html");
    expect(detail.res.status).to.equal(200);
    expect(detail.html).to.include('<article class="product_page">');
    expect(detail.html).to.include("<h1>A Light in the Attic</h1>");
    expect(detail.html).to.include("<th>UPC</th><td>a897fe39b1053632</td>");
    expect(detail.html).to.include('<p class="price_color">£51.77</p>');
    expect(detail.html).to.include("In stock (22 available)");
    expect((await get(site, "/catalogue/no-such-book_5000/index.html")).res.status).to.equal(404);
    const missing = await get(site, "/nope");
    expect(missing.res.status).to.equal(404);
    expect(missing.res.headers.get("content-type")).to.equal("text/html; charset=utf-8");
    const robots = await get(site, "/robots.txt");
    expect(robots.res.headers.get("content-type")).to.equal("text/plain; charset=utf-8");
    expect(robots.html).to.equal("User-agent: *\nDisallow:\n");
    site.setRobots("User-agent: *\nDisallow: /catalogue/\n");
    expect((await get(site, "/robots.txt")).html).to.include("Disallow: /catalogue/");
    site.setRobots(null);
    expect((await get(site, "/robots.txt")).res.status).to.equal(404);
    site.reset();
    expect((await get(site, "/robots.txt")).res.status).to.equal(200);
  });

  it("setPrice changes the listing, the detail page and site.books; reset restores", async () => {
    site.setPrice(1000, "£1.00");
    site.setPrice("90fa61229261140a", 2.5); // by UPC; a number is formatted
    const { html } = await get(site, "/");
    expect(prices(html).slice(0, 3)).to.deep.equal(["£1.00", "£2.50", "£50.10"]);
    expect((await get(site, "/catalogue/a-light-in-the-attic_1000/index.html")).html).to.include("£1.00");
    expect(site.books[0]?.price_gbp).to.equal(1);
    site.reset();
    expect(prices((await get(site, "/")).html).slice(0, 2)).to.deep.equal(["£51.77", "£53.74"]);
    expect(() => site.setPrice(123456, "£1")).to.throw(/no book/);
  });

  it("removeBook shifts the catalogue and restoreBook puts it back", async () => {
    site.removeBook("a-light-in-the-attic_1000");
    let page1 = (await get(site, "/")).html;
    expect(items(page1).map((i) => i.title)).to.deep.equal(books.slice(1, 21).map((b) => b.title));
    expect(page1).to.include("<strong>999</strong> results");
    expect(pods((await get(site, "/catalogue/page-50.html")).html)).to.equal(19);
    expect((await get(site, "/catalogue/a-light-in-the-attic_1000/index.html")).res.status).to.equal(404);
    expect(site.books).to.have.length(999);
    site.restoreBook(1000);
    page1 = (await get(site, "/")).html;
    expect(items(page1)[0]?.title).to.equal("A Light in the Attic");

    for (const b of books.slice(980)) site.removeBook(b.book_id); // the whole last page
    expect(site.pageCount).to.equal(49);
    expect((await get(site, "/catalogue/page-50.html")).res.status).to.equal(404);
    const last = (await get(site, "/catalogue/page-49.html")).html;
    expect(isLastPage(last)).to.equal(true);
    expect(last).to.include("Page 49 of 49");
  });

  it("driftSelectors renders p.price instead of p.price_color, sitewide", async () => {
    site.driftSelectors(true);
    const { html } = await get(site, "/catalogue/page-7.html");
    expect(html).not.to.include("price_color");
    expect(html.match(/<p class="price">£\d+\.\d\d<\/p>/g)).to.have.length(20);
    expect((await get(site, "/catalogue/soumission_998/index.html")).html).to.include('<p class="price">£50.10</p>');
    site.driftSelectors(false);
    expect(prices((await get(site, "/catalogue/page-7.html")).html)).to.have.length(20);
  });

  it("collideTitles gives books one title", async () => {
    site.collideTitles([999, 998]);
    let titles = items((await get(site, "/")).html).map((i) => i.title);
    expect(titles.slice(0, 3)).to.deep.equal(["A Light in the Attic", "Tipping the Velvet", "Tipping the Velvet"]);
    site.collideTitles(["a-light-in-the-attic_1000"], "It's <Same>");
    const html = (await get(site, "/")).html;
    expect(html).to.include('title="It&#39;s &lt;Same&gt;"');
    site.reset();
    titles = items((await get(site, "/")).html).map((i) => i.title);
    expect(titles.slice(0, 3)).to.deep.equal(books.slice(0, 3).map((b) => b.title));
    expect(() => site.collideTitles([999])).to.throw(/two books/);
  });

  describe("blocked pages", () => {
    it("forbidden: 403, only on the blocked page (page 1 = /, /index.html, page-1.html)", async () => {
      site.blockPage(1, "forbidden");
      for (const path of ["/", "/index.html", "/catalogue/page-1.html"]) {
        const { res, html } = await get(site, path);
        expect(res.status).to.equal(403);
        expect(pods(html)).to.equal(0);
      }
      expect((await get(site, "/catalogue/page-2.html")).res.status).to.equal(200);
      site.unblockPage(1);
      expect((await get(site, "/")).res.status).to.equal(200);
    });

    it("rate_limited: 429 with Retry-After", async () => {
      site.blockPage(3, "rate_limited", { retryAfter: 7 });
      const { res } = await get(site, "/catalogue/page-3.html");
      expect(res.status).to.equal(429);
      expect(res.headers.get("retry-after")).to.equal("7");
      site.blockPage(3, "rate_limited");
      expect((await get(site, "/catalogue/page-3.html")).res.headers.get("retry-after")).to.equal("1");
    });

    it("challenge: a Cloudflare-like 'Just a moment...' page, 503 by default or as given", async () => {
      site.blockPage(2, "challenge");
      let r = await get(site, "/catalogue/page-2.html");
      expect(r.res.status).to.equal(503);
      expect(r.html).to.include("<title>Just a moment...</title>");
      expect(r.res.headers.get("cf-mitigated")).to.equal("challenge");
      expect(pods(r.html)).to.equal(0);
      site.blockPage(2, "challenge", { status: 200 });
      r = await get(site, "/catalogue/page-2.html");
      expect(r.res.status).to.equal(200);
      expect(r.html).to.include("Just a moment...");
    });

    it("login_redirect: 302 to /login, which has a password input", async () => {
      site.blockPage(1, "login_redirect");
      const { res } = await get(site, "/", { redirect: "manual" });
      expect(res.status).to.equal(302);
      expect(res.headers.get("location")).to.equal("/login?next=%2F");
      const followed = await get(site, "/");
      expect(followed.res.url).to.equal(`${site.url}/login?next=%2F`);
      expect(followed.html).to.match(/<input type="password"/);
    });

    it("empty_body: 200 with nothing in it", async () => {
      site.blockPage(1, "empty_body");
      const { res, html } = await get(site, "/");
      expect(res.status).to.equal(200);
      expect(res.headers.get("content-type")).to.equal("text/html; charset=utf-8");
      expect(html).to.equal("");
    });

    it("connection_reset: the request fails and is logged with status 0", async () => {
      site.blockPage(4, "connection_reset");
      let failed = false;
      try {
        await fetch(site.pageUrl(4));
      } catch {
        failed = true;
      }
      expect(failed).to.equal(true);
      expect(site.requests.at(-1)).to.include({ path: "/catalogue/page-4.html", status: 0 });
    });

    it("'all' blocks every listing and detail page; robots.txt still answers", async () => {
      site.blockPage("all", "forbidden");
      expect((await get(site, "/catalogue/page-17.html")).res.status).to.equal(403);
      expect((await get(site, "/catalogue/soumission_998/index.html")).res.status).to.equal(403);
      expect((await get(site, "/robots.txt")).res.status).to.equal(200);
      site.unblockPage("all");
      expect((await get(site, "/catalogue/page-17.html")).res.status).to.equal(200);
    });
  });

  it("logs every request in order with method, path, status, kind and user agent", async () => {
    await fetch(`${site.url}/catalogue/page-3.html?x=1`, { headers: { "user-agent": "gleaner-test" } });
    await fetch(`${site.url}/missing`);
    await fetch(`${site.url}/robots.txt`, { method: "HEAD" });
    expect(site.requests).to.deep.equal([
      { method: "GET", path: "/catalogue/page-3.html?x=1", status: 200, kind: "listing", userAgent: "gleaner-test" },
      { method: "GET", path: "/missing", status: 404, kind: "not_found", userAgent: "node" },
      { method: "HEAD", path: "/robots.txt", status: 200, kind: "robots", userAgent: "node" },
    ]);
    expect(site.requestCount).to.equal(3);
    site.clearRequests();
    expect(site.requests).to.deep.equal([]);
  });

  it("applies setDelay to responses", async () => {
    site.setDelay(60);
    const started = Date.now();
    await get(site, "/robots.txt");
    expect(Date.now() - started).to.be.at.least(55);
  });
});

describe("books fixture site, script-rendered variant", () => {
  let site: BooksSite;
  before(async () => {
    site = await startBooksSite({ render: "script" });
  });
  after(async () => {
    await site.close();
  });

  it("serves an empty ol.row with the page's data inline", async () => {
    const { html } = await get(site, "/catalogue/page-2.html");
    expect(pods(html)).to.equal(0);
    expect(items(html)).to.deep.equal([]);
    expect(html).to.match(/<ol class="row">\s*<\/ol>/);
    expect(html).to.include('<li class="next"><a href="page-3.html">next</a></li>');
    const json = /<script type="application\/json" id="books-data">(.*?)<\/script>/s.exec(html)?.[1];
    const data = JSON.parse(json ?? "null") as { items: { title: string; price: string }[] };
    expect(data.items.map((i) => i.title)).to.deep.equal(
      loadBooks()
        .slice(20, 40)
        .map((b) => b.title),
    );
  });

  it("its inline script builds the same 20 product pods a static page has", async () => {
    const [scripted, staticSite] = [(await get(site, "/")).html, await startBooksSite({ render: "static" })];
    try {
      site.driftSelectors(true); // the script variant honours mutations too
      const drifted = (await get(site, "/")).html;
      const expected = items((await get(staticSite, "/")).html);
      for (const [html, priceClass] of [
        [scripted, "price_color"],
        [drifted, "price"],
      ] as const) {
        const ol = runClientScript(html);
        const articles = ol.children.map((li) => li.children[0]);
        expect(articles).to.have.length(20);
        expect(articles.every((a) => a?.className === "product_pod")).to.equal(true);
        const links = ol.findAll((e) => e.tag === "a" && e.attrs.title !== undefined);
        expect(links.map((a) => ({ href: a.attrs.href, title: a.attrs.title }))).to.deep.equal(expected);
        const priceEls = ol.findAll((e) => e.tag === "p" && e.className === priceClass);
        expect(priceEls.map((p) => p.textContent)[0]).to.equal("£51.77");
        expect(priceEls).to.have.length(20);
      }
    } finally {
      site.reset();
      await staticSite.close();
    }
  });
});

/** Just enough DOM to run the page's inline renderer in node:vm and inspect what it built. */
class FakeElement {
  readonly children: FakeElement[] = [];
  readonly attrs: Record<string, string> = {};
  className = "";
  textContent = "";
  constructor(readonly tag: string) {}
  appendChild(child: FakeElement | { text: string }) {
    if (child instanceof FakeElement) this.children.push(child);
    return child;
  }
  setAttribute(name: string, value: string) {
    this.attrs[name] = value;
  }
  findAll(match: (e: FakeElement) => boolean): FakeElement[] {
    return this.children.flatMap((c) => [...(match(c) ? [c] : []), ...c.findAll(match)]);
  }
}

function runClientScript(html: string): FakeElement {
  const json = /<script type="application\/json" id="books-data">(.*?)<\/script>/s.exec(html)?.[1] ?? "";
  const code = /<script type="text\/javascript">(.*?)<\/script>/s.exec(html)?.[1] ?? "";
  const ol = new FakeElement("ol");
  const document = {
    getElementById: (id: string) => (id === "books-data" ? { textContent: json } : null),
    querySelector: (selector: string) => (selector === "ol.row" ? ol : null),
    createElement: (tag: string) => new FakeElement(tag),
    createTextNode: (text: string) => ({ text }),
  };
  runInNewContext(code, { document, JSON });
  return ol;
}
