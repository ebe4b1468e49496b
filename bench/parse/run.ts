/**
 * Parser benchmark: jsdom against htmlparser2 + css-select (Gleaner's two DocumentParser adapters) on
 * the 50 books.toscrape.com listing pages, rendered from the real saved page 1 and books.json in
 * conformance/fixtures/books. Each page is parsed and extracted the way a run does (20 items, title
 * attribute, price, rating class, availability, link resolved, next link). Reports median ms per page and
 * peak RSS for each parser, each measured in a fresh child process so one parser's heap does not skew
 * the other's, then prints the ratios.
 *
 *   npm run bench:parse -w @gleaner/bench   (or npx tsx bench/parse/run.ts; not part of npm test)
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { DocumentParserService } from "@gleaner/core";
import * as Effect from "effect/Effect";
import { median } from "../median.js";

const fixtures = new URL("../../conformance/fixtures/books/", import.meta.url);
interface Book {
  readonly page: number;
  readonly slug: string;
  readonly title: string;
  readonly price: string;
  readonly rating: string;
}

/** Page N of the catalogue: page 1's real markup with the 20 items and the pager of page N. */
export const renderPages = (): string[] => {
  const template = readFileSync(new URL("index.html", fixtures), "utf8");
  const books = JSON.parse(readFileSync(new URL("books.json", fixtures), "utf8")) as Book[];
  const listStart = template.indexOf('<ol class="row">') + '<ol class="row">'.length;
  const listEnd = template.indexOf("</ol>", listStart);
  const firstItem = template.slice(listStart, template.indexOf("</li>", listStart) + "</li>".length);
  const pages: string[] = [];
  for (let page = 1; page <= 50; page++) {
    const items = books
      .filter((book) => book.page === page)
      .map((book) =>
        firstItem
          .replaceAll("catalogue/a-light-in-the-attic_1000/index.html", `${book.slug}/index.html`)
          .replaceAll("A Light in the Attic", book.title.replaceAll("&", "&amp;").replaceAll('"', "&quot;"))
          .replace("£51.77", book.price)
          .replace("star-rating Three", `star-rating ${book.rating}`),
      );
    const next = page < 50 ? `page-${page + 1}.html` : "";
    const html = (template.slice(0, listStart) + items.join("\n") + template.slice(listEnd))
      .replace("Page 1 of 50", `Page ${page} of 50`)
      .replace('href="catalogue/page-2.html"', `href="${next}"`);
    pages.push(html);
  }
  return pages;
};

/** What the engine does with a page: select items, read each field, resolve links, dispose. */
const extract = (parser: DocumentParserService, html: string, url: string): number => {
  const doc = Effect.runSync(parser.parse(html, url));
  let cells = 0;
  for (const item of doc.root.select("article.product_pod")) {
    const link = item.select("h3 > a")[0];
    const values = [
      link?.attribute("title"),
      link ? doc.resolveUrl(link.attribute("href") ?? "") : null,
      item.select("p.price_color")[0]?.text(),
      item.select("p.star-rating")[0]?.attribute("class"),
      item.select("p.instock.availability")[0]?.text(),
      item.excerpt(2048).text,
    ];
    cells += values.filter((value) => value).length;
  }
  doc.root.select("ul.pager li.next a");
  doc.dispose();
  return cells;
};

/** One child: a warm-up pass over the 50 pages (JIT), then `passes` measured passes. */
const measure = async (which: string, passes: number) => {
  const parser: DocumentParserService =
    which === "jsdom"
      ? { parse: (await import("@gleaner/jsdom")).parseWithJsdom }
      : { parse: (await import("@gleaner/htmlparser2")).parseWithHtmlparser2 };
  const pages = renderPages();
  let peakRss = process.memoryUsage().rss;
  const samples: number[] = [];
  let cells = 0;
  for (let pass = 0; pass <= passes; pass++) {
    for (const [index, html] of pages.entries()) {
      const started = performance.now();
      cells = extract(parser, html, `http://books.local/catalogue/page-${index + 1}.html`);
      if (pass > 0) samples.push(performance.now() - started);
      peakRss = Math.max(peakRss, process.memoryUsage().rss);
    }
  }
  if (cells !== 120) throw new Error(`${which} extracted ${cells} cells from a page, expected 120`);
  const bytes = pages.reduce((sum, page) => sum + page.length, 0) / pages.length;
  console.log(
    JSON.stringify({
      which,
      medianMs: median(samples),
      peakRssMb: peakRss / 1024 / 1024,
      pageKb: bytes / 1024,
      pages: samples.length,
    }),
  );
};

interface ChildFigures {
  readonly medianMs: number;
  readonly peakRssMb: number;
  readonly pageKb: number;
}

const child = process.argv[2];
if (child === "jsdom" || child === "htmlparser2") {
  await measure(child, Number(process.argv[3] ?? 1));
} else {
  // Interleaved rounds: each round runs both parsers, each in a fresh child, in an order that alternates,
  // so a burst of load elsewhere hits both; medians over rounds and per-round ratios.
  const roundsArg = process.argv.indexOf("--rounds");
  const rounds = roundsArg > 0 ? Number(process.argv[roundsArg + 1]) : 5;
  const self = fileURLToPath(import.meta.url);
  const run = (which: string) =>
    JSON.parse(
      execFileSync(process.execPath, ["--import", "tsx", self, which, "1"], { encoding: "utf8" }).trim(),
    ) as ChildFigures;
  const jsdom: ChildFigures[] = [];
  const fast: ChildFigures[] = [];
  for (let round = 0; round < rounds; round++) {
    if (round % 2 === 0) {
      jsdom.push(run("jsdom"));
      fast.push(run("htmlparser2"));
    } else {
      fast.push(run("htmlparser2"));
      jsdom.push(run("jsdom"));
    }
  }
  const summary = (xs: readonly ChildFigures[]) => ({
    medianMs: median(xs.map((x) => x.medianMs)),
    peakRssMb: median(xs.map((x) => x.peakRssMb)),
  });
  const j = summary(jsdom);
  const h = summary(fast);
  const row = (name: string, r: { medianMs: number; peakRssMb: number }) =>
    `${name.padEnd(24)} ${r.medianMs.toFixed(2).padStart(8)} ms/page ${r.peakRssMb.toFixed(0).padStart(6)} MB peak RSS`;
  console.log(
    `books listing pages: 50 pages, ${rounds} interleaved rounds (a fresh child per parser per round, one warm-up pass), ` +
      `~${jsdom[0]!.pageKb.toFixed(0)} KB each, 20 items, 6 reads per item`,
  );
  console.log(row("jsdom", j));
  console.log(row("htmlparser2 + css-select", h));
  const perRound = jsdom.map((x, i) => (x.medianMs / fast[i]!.medianMs).toFixed(1));
  console.log(
    `ratio jsdom / htmlparser2: time ${(j.medianMs / h.medianMs).toFixed(1)}x (per round ${perRound.join(", ")}), ` +
      `peak RSS ${(j.peakRssMb / h.peakRssMb).toFixed(1)}x`,
  );
}
