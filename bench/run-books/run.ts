/**
 * Whole-run benchmark on the local 50-page books site (issue 4, item 5): Gleaner's full acceptance
 * (POST /runs → `succeeded`) against a crawl-only Crawlee CheerioCrawler and JSDOMCrawler, on one site
 * instance served by this process, each contender in its own child process (so peak RSS is its own),
 * repeated and reported as medians. Not part of npm test; no timing assertion lives in a test.
 *
 *   npm run bench:run-books -w @gleaner/bench [-- --repeats 5] [--validators honoured|ignored]
 *     [--contenders gleaner,cheerio]
 *
 * Three comparisons:
 *   1. sequential (the target): everyone at concurrency 1 following the next-page link from /index.html,
 *      which is what a Gleaner next-link run does. Target: Gleaner ≤ 1.0× CheerioCrawler's wall time.
 *   2. Crawlee parallel: Crawlee at min = max concurrency 10 with all 50 page URLs enqueued up front, a
 *      shortcut next-link pagination cannot take; Gleaner's numbers are the same sequential runs.
 *   3. whole process, sequential: spawn → first run succeeded (Gleaner: host start-up, key, dataset,
 *      run) against spawn → crawl done (Crawlee: import, construction, crawl), with each process's peak
 *      RSS at that moment. Target (issue 17): ≤ 1.0× CheerioCrawler in time and in RSS.
 * The site is started here; a child gets only its URL (Gleaner's also the dataset body), so a Crawlee
 * process loads nothing of Gleaner and a Gleaner process nothing of the conformance suite.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { BOOKS_SELECTORS, startBooksSite } from "@gleaner/conformance";
import { booksDataset } from "./books.js";
import { type ChildResult, crawleeEnv, DONE_MARKER, PAGES, RESULT_MARKER, SELECTORS } from "./crawl-rows.js";
import { median } from "../median.js";

const here = fileURLToPath(new URL(".", import.meta.url));
const repeatsArg = process.argv.indexOf("--repeats");
const repeats = repeatsArg > 0 ? Number(process.argv[repeatsArg + 1]) : 3;
if (!Number.isInteger(repeats) || repeats < 1) throw new Error("--repeats must be a positive integer");
// The site sends no ETag / Last-Modified unless asked: `honoured` answers 304 to a conditional
// request, `ignored` sends the validators but always answers 200 (decision 0042).
const validatorsArg = process.argv.indexOf("--validators");
const validators = validatorsArg > 0 ? process.argv[validatorsArg + 1] : undefined;
if (validators !== undefined && validators !== "honoured" && validators !== "ignored") {
  throw new Error("--validators must be honoured or ignored");
}

interface Contender {
  readonly id: string;
  readonly label: string;
  readonly script: string;
  readonly args: readonly string[];
}
const allContenders: readonly Contender[] = [
  { id: "gleaner", label: "Gleaner (htmlparser2), full acceptance", script: "gleaner.ts", args: ["htmlparser2"] },
  { id: "gleaner-jsdom", label: "Gleaner (jsdom), full acceptance", script: "gleaner.ts", args: ["jsdom"] },
  { id: "cheerio", label: "CheerioCrawler, crawl only", script: "crawlee.ts", args: ["cheerio", "sequential"] },
  { id: "jsdom", label: "JSDOMCrawler, crawl only", script: "crawlee.ts", args: ["jsdom", "sequential"] },
  {
    id: "cheerio-10",
    label: "CheerioCrawler ×10, all URLs up front",
    script: "crawlee.ts",
    args: ["cheerio", "parallel"],
  },
  { id: "jsdom-10", label: "JSDOMCrawler ×10, all URLs up front", script: "crawlee.ts", args: ["jsdom", "parallel"] },
];
// `--contenders gleaner,cheerio` runs only those (the engine goal needs just these two): quicker rounds,
// so more of them in the same time. The tables and targets of the others are then left out.
const only = process.argv.indexOf("--contenders");
const chosen = only > 0 ? new Set((process.argv[only + 1] ?? "").split(",")) : null;
if (chosen !== null && !(chosen.has("gleaner") && chosen.has("cheerio"))) {
  throw new Error("--contenders must include gleaner and cheerio");
}
const contenders = allContenders.filter((c) => chosen === null || chosen.has(c.id));
const ran = (id: string) => contenders.some((c) => c.id === id);

interface Sample extends ChildResult {
  readonly listingRequests: number;
  readonly otherRequests: number;
  /** Whole process: from spawn to the child's done line (Gleaner: first run succeeded; Crawlee: crawl done). */
  readonly spawnToDoneMs: number;
  /** The child's peak RSS when it printed its done line. */
  readonly peakRssAtDoneMb: number;
}

// The Crawlee children carry a copy of the selectors (they import nothing of Gleaner): keep it honest.
const { item, link, price, rating, availability, nextLink } = BOOKS_SELECTORS;
if (!isDeepStrictEqual(SELECTORS, { item, link, price, rating, availability, nextLink })) {
  throw new Error("crawl-rows.ts SELECTORS differ from the conformance suite's BOOKS_SELECTORS");
}

const site = await startBooksSite(validators ? { validators } : {});
const storage = mkdtempSync(join(tmpdir(), "gleaner-bench-crawlee-"));
const samples = new Map<string, Sample[]>(contenders.map((c) => [c.id, []]));

/** Spawns one contender and timestamps its done line as it arrives (the whole-process span). */
const runChild = (c: Contender): Promise<Sample> => {
  site.clearRequests();
  rmSync(storage, { recursive: true, force: true });
  return new Promise((resolve, reject) => {
    const spawnedAt = performance.now();
    // Gleaner's child gets its dataset body too: it must not load the conformance suite to build it.
    const dataset = c.script === "gleaner.ts" ? [JSON.stringify(booksDataset(site.url))] : [];
    const child = spawn(process.execPath, ["--import", "tsx", join(here, c.script), ...c.args, site.url, ...dataset], {
      cwd: here,
      env: crawleeEnv(storage),
      stdio: ["ignore", "pipe", "inherit"],
    });
    let done: { at: number; rssMb: number } | undefined;
    let result: ChildResult | undefined;
    const lines = createInterface({ input: child.stdout });
    lines.on("line", (line) => {
      if (line.startsWith(DONE_MARKER)) done = { at: performance.now(), rssMb: Number(line.slice(DONE_MARKER.length)) };
      else if (line.startsWith(RESULT_MARKER)) result = JSON.parse(line.slice(RESULT_MARKER.length)) as ChildResult;
    });
    child.once("error", reject);
    child.once("close", (code) => {
      if (code !== 0 || done === undefined || result === undefined) {
        reject(
          new Error(
            `${c.id}: exited ${code}, done line ${done ? "seen" : "missing"}, result ${result ? "seen" : "missing"}`,
          ),
        );
        return;
      }
      const listing = site.requests.filter((r) => r.kind === "listing").length;
      resolve({
        ...result,
        listingRequests: listing,
        otherRequests: site.requestCount - listing,
        spawnToDoneMs: done.at - spawnedAt,
        peakRssAtDoneMb: done.rssMb,
      });
    });
  });
};

try {
  console.log(
    `books site ${site.url}: ${PAGES} pages × 20 books; Node ${process.versions.node}, ${cpus().length} cores ` +
      `(${cpus()[0]?.model ?? "?"}), ${(totalmem() / 2 ** 30).toFixed(1)} GB; load average ${loadavg()[0]!.toFixed(1)}; ${repeats} repeats, medians`,
  );
  for (let round = 0; round < repeats; round++) {
    // Rotate the order each round so no contender always runs first (cold disk cache) or last.
    const order = contenders.map((_, i) => contenders[(i + round) % contenders.length]!);
    for (const c of order) {
      const sample = await runChild(c);
      samples.get(c.id)!.push(sample);
      console.log(
        `  round ${round + 1} ${c.id.padEnd(13)} ${sample.wallMs.toFixed(0).padStart(6)} ms ` +
          `${sample.peakRssMb.toFixed(0).padStart(4)} MB; whole process ${sample.spawnToDoneMs.toFixed(0).padStart(6)} ms ` +
          `${sample.peakRssAtDoneMb.toFixed(0).padStart(4)} MB  (${sample.listingRequests} listing + ${sample.otherRequests} other requests)`,
      );
    }
  }
  console.log(
    `load average at the end: ${loadavg()[0]!.toFixed(1)} (other processes on these cores skew every contender)`,
  );
} finally {
  await site.close();
  rmSync(storage, { recursive: true, force: true });
}

type Span = "span" | "whole";
const stat = (id: string, span: Span = "span") => {
  const xs = samples.get(id)!;
  return span === "span"
    ? { wallMs: median(xs.map((x) => x.wallMs)), peakRssMb: median(xs.map((x) => x.peakRssMb)) }
    : { wallMs: median(xs.map((x) => x.spawnToDoneMs)), peakRssMb: median(xs.map((x) => x.peakRssAtDoneMb)) };
};
const byId = new Map(contenders.map((c) => [c.id, c]));

const table = (title: string, wanted: readonly string[], baseline: string, span: Span = "span") => {
  if (!ran(baseline)) return;
  const ids = wanted.filter(ran);
  const base = stat(baseline, span);
  console.log(`\n${title}`);
  console.log(
    `${"contender".padEnd(40)} ${"wall ms".padStart(8)} ${"pages/s".padStart(8)} ${"peak RSS MB".padStart(12)} ${"time ×".padStart(7)} ${"RSS ×".padStart(6)}`,
  );
  for (const id of ids) {
    const s = stat(id, span);
    console.log(
      `${byId.get(id)!.label.padEnd(40)} ${s.wallMs.toFixed(0).padStart(8)} ${((PAGES * 1000) / s.wallMs).toFixed(1).padStart(8)} ` +
        `${s.peakRssMb.toFixed(0).padStart(12)} ${(s.wallMs / base.wallMs).toFixed(2).padStart(7)} ${(s.peakRssMb / base.peakRssMb).toFixed(2).padStart(6)}`,
    );
  }
};

table(
  "1. concurrency 1, next-link from /index.html (ratios vs CheerioCrawler, crawl only)",
  ["gleaner", "gleaner-jsdom", "cheerio", "jsdom"],
  "cheerio",
);
table(
  "2. Crawlee at concurrency 10 with all 50 URLs enqueued up front; Gleaner still sequential next-link (ratios vs CheerioCrawler ×10)",
  ["gleaner", "gleaner-jsdom", "cheerio-10", "jsdom-10"],
  "cheerio-10",
);

table(
  "3. whole process, spawn → first run succeeded / crawl done, peak RSS of the process then (ratios vs CheerioCrawler)",
  ["gleaner", "gleaner-jsdom", "cheerio", "jsdom"],
  "cheerio",
  "whole",
);

const ratio = stat("gleaner").wallMs / stat("cheerio").wallMs;
// Same-round ratios: both ran within seconds of each other, so a burst of load elsewhere hits both.
const paired = samples.get("gleaner")!.map((g, i) => g.wallMs / samples.get("cheerio")![i]!.wallMs);
console.log(
  `\nTarget: Gleaner full acceptance ≤ 1.0× CheerioCrawler crawl-only (sequential): ${ratio.toFixed(2)}× — ${ratio <= 1 ? "MET" : "NOT MET"}` +
    ` (per-round ratios ${paired.map((r) => r.toFixed(2)).join(", ")}; median ${median(paired).toFixed(2)}×)`,
);
// Issue 17's engine goal: the run's own span (startedAt → completedAt), without the POST and the
// queue's pickup, against the same crawl.
const cheerioMs = samples.get("cheerio")!.map((c) => c.wallMs);
const engineMs = samples.get("gleaner")!.map((g) => Number((g.extra as Record<string, unknown>).engineWallMs));
const engineRatio = median(engineMs) / median(cheerioMs);
const enginePaired = engineMs.map((e, i) => e / cheerioMs[i]!);
console.log(
  `Target (issue 17): Gleaner engine span (startedAt → completedAt) ≤ 0.4× CheerioCrawler crawl-only: ` +
    `${engineRatio.toFixed(2)}× of medians (${median(engineMs).toFixed(0)} / ${median(cheerioMs).toFixed(0)} ms; ` +
    `per round ${enginePaired.map((r) => r.toFixed(2)).join(", ")}; median ${median(enginePaired).toFixed(2)}×) — ` +
    `${engineRatio <= 0.4 ? "MET" : "NOT MET"}`,
);
const whole = stat("gleaner", "whole");
const wholeBase = stat("cheerio", "whole");
const wholePaired = samples.get("gleaner")!.map((g, i) => g.spawnToDoneMs / samples.get("cheerio")![i]!.spawnToDoneMs);
console.log(
  `Target: whole process ≤ 1.0× the CheerioCrawler script: time ${(whole.wallMs / wholeBase.wallMs).toFixed(2)}× ` +
    `(per round ${wholePaired.map((r) => r.toFixed(2)).join(", ")}) — ${whole.wallMs <= wholeBase.wallMs ? "MET" : "NOT MET"}; ` +
    `peak RSS ${(whole.peakRssMb / wholeBase.peakRssMb).toFixed(2)}× — ${whole.peakRssMb <= wholeBase.peakRssMb ? "MET" : "NOT MET"}`,
);
for (const id of ["gleaner", "gleaner-jsdom"].filter(ran)) {
  const xs = samples.get(id)!;
  const extras = xs.map((x) => x.extra as Record<string, any>);
  const revisions = extras.map((e) => e.revisionsSecondRun);
  console.log(
    `${byId.get(id)!.label}, second run with no change: rowDeltas ${JSON.stringify(extras[0]!.secondRowDeltas)} in every repeat; ` +
      `revisions written (GET /changes after run 1's sequence): ${revisions.every((r) => r === null) ? "n/a (no changes feed)" : revisions.join(", ")}; ` +
      `median ${median(extras.map((e) => e.secondRunMs)).toFixed(0)} ms`,
  );
  // Issue 17: the unchanged re-run against the first run of the same process (same round).
  const rerun = xs.map((x, i) => extras[i]!.secondRunMs / x.wallMs);
  const rerunRatio = median(extras.map((e) => e.secondRunMs)) / stat(id).wallMs;
  console.log(
    `Target: ${byId.get(id)!.label}, unchanged re-run ≤ 0.3× the first run: ${rerunRatio.toFixed(2)}× of medians ` +
      `(per round ${rerun.map((r) => r.toFixed(2)).join(", ")}; median ${median(rerun).toFixed(2)}×; ` +
      `site validators: ${validators ?? "none"}) — ` +
      `${rerunRatio <= 0.3 ? "MET" : "NOT MET"}`,
  );
}
