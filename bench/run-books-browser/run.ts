/**
 * Browser benchmark (issue 9, item 5): the script-rendered 50-page books site (items written by an
 * inline script) read by Gleaner with `render: browser` (full acceptance: render, extract, check,
 * write 1000 rows) against Crawlee's PlaywrightCrawler (crawl only) on the same Chromium, both at
 * concurrency 1 following the pager, each in its own child process, medians of --repeats rounds.
 * Peak RSS is the child's whole process tree (Node + Chromium), sampled every 100 ms.
 *
 *   npm run bench:run-books-browser -w @gleaner/bench [-- --repeats 3]
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { startBooksSite } from "@gleaner/conformance";
import { CHROMIUM_ARGS } from "@gleaner/playwright";
import { booksDataset } from "../run-books/books.js";
import { type ChildResult, PAGES, RESULT_MARKER } from "../run-books/crawl-rows.js";
import { median } from "../median.js";

const run = promisify(execFile);
const here = fileURLToPath(new URL(".", import.meta.url));
const repeatsArg = process.argv.indexOf("--repeats");
const repeats = repeatsArg > 0 ? Number(process.argv[repeatsArg + 1]) : 3;
if (!Number.isInteger(repeats) || repeats < 1) throw new Error("--repeats must be a positive integer");
const browserPath = process.env.GLEANER_BROWSER_PATH || "/usr/bin/chromium";
if (!existsSync(browserPath)) throw new Error(`No Chromium at ${browserPath}: apt-get install chromium.`);

const contenders = [
  { id: "gleaner", label: "Gleaner render: browser, full acceptance", script: "gleaner.ts" },
  { id: "crawlee", label: "PlaywrightCrawler, crawl only", script: "crawlee.ts" },
] as const;

const site = await startBooksSite({ render: "script" });
// Each child gets what it needs from here, so neither loads the other's code: PlaywrightCrawler
// Gleaner's launch flags, Gleaner the dataset body (the conformance suite's, rendered in a browser).
const chromiumJson = JSON.stringify(CHROMIUM_ARGS);
const dataset = booksDataset(site.url) as { source: Record<string, unknown> };
dataset.source.render = "browser";
const datasetJson = JSON.stringify(dataset);
const storage = mkdtempSync(join(tmpdir(), "gleaner-bench-browser-"));
const samples = new Map<string, ChildResult[]>(contenders.map((c) => [c.id, []]));
try {
  console.log(
    `script-rendered books site ${site.url}: ${PAGES} pages × 20 books; Node ${process.versions.node}, ` +
      `${cpus().length} cores; load average ${loadavg()[0]!.toFixed(1)}; ${repeats} repeats, medians`,
  );
  for (let round = 0; round < repeats; round++) {
    const order = round % 2 === 0 ? contenders : [...contenders].reverse();
    for (const c of order) {
      rmSync(storage, { recursive: true, force: true });
      const { stdout } = await run(
        process.execPath,
        [
          "--import",
          "tsx",
          join(here, c.script),
          site.url,
          browserPath,
          c.id === "gleaner" ? datasetJson : chromiumJson,
        ],
        {
          cwd: here,
          env: { ...process.env, CRAWLEE_STORAGE_DIR: storage, CRAWLEE_PURGE_ON_START: "true" },
          maxBuffer: 16 * 1024 * 1024,
          timeout: 900_000,
        },
      );
      const line = stdout.split("\n").find((l) => l.startsWith(RESULT_MARKER));
      if (line === undefined) throw new Error(`${c.id}: no result line in\n${stdout}`);
      const sample = JSON.parse(line.slice(RESULT_MARKER.length)) as ChildResult;
      samples.get(c.id)!.push(sample);
      console.log(
        `  round ${round + 1} ${c.id.padEnd(8)} ${sample.wallMs.toFixed(0).padStart(7)} ms ${sample.peakRssMb.toFixed(0).padStart(5)} MB`,
      );
    }
  }
} finally {
  await site.close();
  rmSync(storage, { recursive: true, force: true });
}

const stat = (id: string) => {
  const xs = samples.get(id)!;
  return { wallMs: median(xs.map((x) => x.wallMs)), peakRssMb: median(xs.map((x) => x.peakRssMb)) };
};
const base = stat("crawlee");
console.log(
  `\n${"contender".padEnd(42)} ${"wall ms".padStart(8)} ${"pages/s".padStart(8)} ${"peak RSS MB".padStart(12)} ${"time ×".padStart(7)} ${"RSS ×".padStart(6)}`,
);
for (const c of contenders) {
  const s = stat(c.id);
  console.log(
    `${c.label.padEnd(42)} ${s.wallMs.toFixed(0).padStart(8)} ${((PAGES * 1000) / s.wallMs).toFixed(2).padStart(8)} ` +
      `${s.peakRssMb.toFixed(0).padStart(12)} ${(s.wallMs / base.wallMs).toFixed(2).padStart(7)} ${(s.peakRssMb / base.peakRssMb).toFixed(2).padStart(6)}`,
  );
}
const g = stat("gleaner");
console.log(
  `\nratio Gleaner / PlaywrightCrawler: time ${(g.wallMs / base.wallMs).toFixed(2)}x, peak RSS ${(g.peakRssMb / base.peakRssMb).toFixed(2)}x`,
);
