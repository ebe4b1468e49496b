// Child process: Crawlee's PlaywrightCrawler over the script-rendered books site on the same Chromium
// (playwright-core's launcher, GLEANER_BROWSER_PATH, Gleaner's launch flags), crawl only: render, read
// the five fields of every item, follow the pager. Concurrency 1 from /index.html, as a Gleaner
// next-link run reads.   crawlee.ts <siteUrl> <browserPath> <Chromium args as JSON>
// Imports nothing of Gleaner (run.ts passes Gleaner's launch flags): the process carries Crawlee alone.
import { chromium } from "playwright-core";
import { type BookRow, checkRows, PAGES, report, SELECTORS, toRow } from "../run-books/crawl-rows.js";
import { watchPeakRss } from "./tree-rss.js";

const [siteUrl, browserPath, argsJson] = process.argv.slice(2);
if (!siteUrl || !browserPath || !argsJson) throw new Error("usage: crawlee.ts <siteUrl> <browserPath> <argsJson>");
const chromiumArgs = JSON.parse(argsJson) as string[];

const { PlaywrightCrawler, Configuration, log } = await import("@crawlee/playwright");
log.setLevel(log.LEVELS.OFF);
const rows: BookRow[] = [];
let pages = 0;
const crawler = new PlaywrightCrawler(
  {
    maxConcurrency: 1,
    maxRequestRetries: 0,
    headless: true,
    // playwright-core's launcher: no `playwright` package, no browser download.
    // Gleaner's flags minus the dead default proxy: Gleaner gives each read a context whose proxy is
    // its SSRF guard; Crawlee's pages live in the default context and would go nowhere.
    launchContext: {
      launcher: chromium,
      launchOptions: { executablePath: browserPath, args: chromiumArgs.filter((arg) => !arg.startsWith("--proxy-")) },
    },
    async requestHandler({ page, request, enqueueLinks }) {
      pages++;
      const url = request.loadedUrl ?? request.url;
      const items = await page.$$eval(
        SELECTORS.item,
        (elements: Element[], s: typeof SELECTORS) =>
          elements.map((item: Element) => {
            const link = item.querySelector(s.link);
            return [
              link?.getAttribute("href"),
              link?.getAttribute("title"),
              item.querySelector(s.price)?.textContent,
              item.querySelector(s.rating)?.getAttribute("class"),
              item.querySelector(s.availability)?.textContent,
            ];
          }),
        SELECTORS,
      );
      for (const [href, title, price, rating, availability] of items) {
        rows.push(toRow(url, href, title, price, rating, availability));
      }
      await enqueueLinks({ selector: SELECTORS.nextLink });
    },
  },
  new Configuration({ persistStorage: false, purgeOnStart: true }),
);
const stopRss = watchPeakRss();
const started = performance.now();
await crawler.run([`${siteUrl}/index.html`]);
const wallMs = performance.now() - started;
const peakRssMb = stopRss();
checkRows(rows);
if (pages !== PAGES) throw new Error(`crawled ${pages} pages, expected ${PAGES}`);
report({ contender: "crawlee-playwright", wallMs, pages, rows: rows.length, peakRssMb });
process.exit(0);
