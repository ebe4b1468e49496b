import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { type Book, booksDataset, loadBooks, type BooksSite, startBooksSite } from "@gleaner/conformance";
import { type RunningHost, startHost } from "@gleaner/koa";
import { type Browser, chromium, type Page } from "playwright-core";
import { pino } from "pino";

export const browserPath = process.env.GLEANER_BROWSER_PATH || "/usr/bin/chromium";
const distIndex = fileURLToPath(new URL("../dist/index.html", import.meta.url));
export const artifactsDir = fileURLToPath(new URL("../test-artifacts/", import.meta.url));

/** A title a hostile page could carry; the console must show it as text. */
export const HOSTILE_TITLE = `<img src=x onerror="window.__gleanerXss=1">`;

/**
 * Whether the browser tests can run. A missing Chromium prints why locally and is an error in CI
 * (CI=true), so a broken install can never pass as green. A console that was never built is always
 * an error: `npm run build` (and `npm test`'s pretest) builds it.
 */
export const chromiumAvailable = (): boolean => {
  if (!existsSync(distIndex)) throw new Error(`The console is not built (${distIndex}): run npm run build first.`);
  if (existsSync(browserPath)) return true;
  const why = `Chromium not found at ${browserPath} (apt-get install chromium, or set GLEANER_BROWSER_PATH)`;
  if (process.env.CI === "true") throw new Error(`${why}: the console's browser tests must run in CI.`);
  console.log(`  @gleaner/console browser tests did not run: ${why}.`);
  return false;
};

export interface Stage {
  readonly host: RunningHost;
  readonly site: BooksSite;
  readonly browser: Browser;
  readonly apiKey: string;
  close(): Promise<void>;
}

/**
 * A Gleaner host on loopback (memory adapters, worker on), the local books site with three listing
 * pages (one book titled with markup), and Chromium.
 */
export const startStage = async (): Promise<Stage> => {
  const books: Book[] = loadBooks()
    .slice(0, 60)
    .map((book, index) => (index === 3 ? { ...book, title: HOSTILE_TITLE } : book));
  // A delay per page keeps the run unfinished for more than a second, so the test sees the run page
  // change from running to succeeded in place.
  const site = await startBooksSite({ books, delayMs: 450 });
  const host = await startHost({
    config: {
      port: 0,
      host: "127.0.0.1",
      logLevel: "silent",
      allowPrivateTargets: ["127.0.0.1/32"],
      // A failed delivery is retried within a second or two, so the webhooks page shows the retry while a test waits.
      webhooks: { timeoutMs: 5_000, pollMs: 1_000, retryBaseMs: 1_000 },
    },
    logger: pino({ level: "silent" }),
  });
  const apiKey = await host.createKey(`console-${crypto.randomUUID()}`, 100);
  const browser = await chromium.launch({
    executablePath: browserPath,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
  });
  await mkdir(artifactsDir, { recursive: true });
  return {
    host,
    site,
    browser,
    apiKey,
    close: async () => {
      await browser.close();
      await host.close();
      await site.close();
    },
  };
};

/** The books dataset body, with labels a person would give the columns. */
export const labelledBooksDataset = (site: BooksSite) =>
  booksDataset(site, "next-link", (body) => {
    const labels: Record<string, string> = {
      link: "Link",
      title: "Title",
      price: "Price (£)",
      rating: "Rating",
      availability: "Availability",
      notes: "Notes",
    };
    body.name = "Books to Scrape";
    body.columns = body.columns.map((column: { name: string }) => ({ ...column, label: labels[column.name] }));
  });

export const screenshot = (page: Page, name: string) =>
  page.screenshot({ path: `${artifactsDir}${name}.png`, fullPage: false });
