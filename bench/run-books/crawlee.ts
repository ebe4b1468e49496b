// Child process: one Crawlee crawl of the books site, crawl-only (fetch, parse, read the five fields, follow
// the pager), rows kept in memory and checked at the end. Started by run.ts with
//   crawlee.ts <cheerio|jsdom> <sequential|parallel> <siteUrl>
// sequential: maxConcurrency 1, start at /index.html, follow `li.next > a` (what a Gleaner run does);
// parallel:   min = max concurrency 10, all 50 page URLs enqueued up front (a shortcut Gleaner's
//             next-link run cannot take).
// Imports nothing of Gleaner (only crawl-rows.ts, which imports nothing): the process carries Crawlee alone.
import { type BookRow, checkRows, PAGES, peakRssMb, report, reportDone, SELECTORS, toRow } from "./crawl-rows.js";

const [kind, mode, siteUrl] = process.argv.slice(2);
if ((kind !== "cheerio" && kind !== "jsdom") || (mode !== "sequential" && mode !== "parallel") || !siteUrl) {
  throw new Error("usage: crawlee.ts <cheerio|jsdom> <sequential|parallel> <siteUrl>");
}
// One crawler package per process (`crawlee` itself loads every crawler: +~85 MB RSS for nothing used here).
// The timed span is `crawler.run()` only: Gleaner's span likewise starts on a running host with the
// dataset already created.

const concurrency = mode === "sequential" ? { maxConcurrency: 1 } : { minConcurrency: 10, maxConcurrency: 10 };
const start =
  mode === "sequential"
    ? [`${siteUrl}/index.html`]
    : Array.from({ length: PAGES }, (_, i) => `${siteUrl}/catalogue/page-${i + 1}.html`);
const rows: BookRow[] = [];
let pages = 0;
let started = 0;
if (kind === "cheerio") {
  const { CheerioCrawler, Configuration, log } = await import("@crawlee/cheerio");
  log.setLevel(log.LEVELS.OFF);
  // In-memory storage only (CRAWLEE_STORAGE_DIR is a temp dir set by run.ts, purged on start).
  const config = new Configuration({ persistStorage: false, purgeOnStart: true });
  const crawler = new CheerioCrawler(
    {
      ...concurrency,
      maxRequestRetries: 0,
      async requestHandler({ $, request, enqueueLinks }) {
        pages++;
        const url = request.loadedUrl ?? request.url;
        $(SELECTORS.item).each((_, el) => {
          const item = $(el);
          const link = item.find(SELECTORS.link).first();
          rows.push(
            toRow(
              url,
              link.attr("href"),
              link.attr("title"),
              item.find(SELECTORS.price).first().text(),
              item.find(SELECTORS.rating).first().attr("class"),
              item.find(SELECTORS.availability).first().text(),
            ),
          );
        });
        if (mode === "sequential") await enqueueLinks({ selector: SELECTORS.nextLink });
      },
    },
    config,
  );
  started = performance.now();
  await crawler.run(start);
} else {
  const { JSDOMCrawler, Configuration, log } = await import("@crawlee/jsdom");
  log.setLevel(log.LEVELS.OFF);
  const config = new Configuration({ persistStorage: false, purgeOnStart: true });
  const crawler = new JSDOMCrawler(
    {
      ...concurrency,
      maxRequestRetries: 0,
      async requestHandler({ window, request, enqueueLinks }) {
        pages++;
        const url = request.loadedUrl ?? request.url;
        for (const item of window.document.querySelectorAll(SELECTORS.item)) {
          const link = item.querySelector(SELECTORS.link);
          rows.push(
            toRow(
              url,
              link?.getAttribute("href"),
              link?.getAttribute("title"),
              item.querySelector(SELECTORS.price)?.textContent,
              item.querySelector(SELECTORS.rating)?.getAttribute("class"),
              item.querySelector(SELECTORS.availability)?.textContent,
            ),
          );
        }
        if (mode === "sequential") await enqueueLinks({ selector: SELECTORS.nextLink });
      },
    },
    config,
  );
  started = performance.now();
  await crawler.run(start);
}
checkRows(rows);
const wallMs = performance.now() - started;
if (pages !== PAGES) throw new Error(`${kind} ${mode}: crawled ${pages} pages, expected ${PAGES}`);
reportDone();
report({ contender: `${kind}-${mode}`, wallMs, pages, rows: rows.length, peakRssMb: peakRssMb() });
process.exit(0);
