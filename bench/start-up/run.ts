/**
 * Whole process as deployed (issue 17: "start like a library"): spawn → first run succeeded for the
 * `gleaner` CLI, against spawn → crawl done for the CheerioCrawler script of run-books, each as it runs
 * in production: compiled JavaScript on plain Node, no tsx in any measured process.
 *
 *   npm run bench:start-up -w @gleaner/bench [-- --rounds 5]
 *
 * Contenders, interleaved round by round in a rotating order, medians reported:
 *   - gleaner (bin): `node hosts/koa/bin/gleaner.js serve --dev-key` — the CLI from its bundle — on the
 *     memory store, driven from here over HTTP: create the books dataset, start a run, poll every 5 ms
 *     until it is `succeeded` (full acceptance: 50 pages, 1000 rows, 50 credits).
 *   - gleaner (modules): the same CLI from its unbundled modules (`hosts/koa/dist/cli.js`), to show what
 *     the bundle is worth.
 *   - CheerioCrawler script: run-books/crawlee.ts and crawl-rows.ts compiled to JavaScript (esbuild,
 *     one file each, packages from node_modules as a Crawlee user runs them).
 * The peer is not bundled: Crawlee 3.18.1 does not survive esbuild's bundling (it finds its storage
 * clients by class name; with names kept, the bundled script crawls 0 pages without a word), so it runs
 * as its users run it, from node_modules.
 * Peak RSS: the kernel's high-water mark (VmHWM) of the process when it is done (Gleaner: when the
 * run is seen `succeeded`; Crawlee: its own maxRSS on its done line — the same figure).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { startBooksSite } from "@gleaner/conformance";
import { build } from "esbuild";
import { positiveIntegerArg } from "../args.js";
import { clientOf, createDataset, runToSuccess } from "../host-client.js";
import { median } from "../median.js";
import { booksDataset } from "../run-books/books.js";
import { crawleeEnv, DONE_MARKER } from "../run-books/crawl-rows.js";

const here = fileURLToPath(new URL(".", import.meta.url));
const rounds = positiveIntegerArg("rounds", 5);
const bin = join(here, "../../hosts/koa/bin/gleaner.js");
const modulesCli = join(here, "../../hosts/koa/dist/cli.js");
// Inside bench/, so the compiled script resolves @crawlee/cheerio from node_modules like the source does.
const out = join(here, ".build");

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const crawleeSources = ["crawlee.ts", "crawl-rows.ts"].map((f) => join(here, "../run-books", f));
await build({
  entryPoints: crawleeSources,
  outdir: join(out, "compiled"),
  format: "esm",
  platform: "node",
  target: "node24",
  logLevel: "warning",
});

const site = await startBooksSite();
const storage = mkdtempSync(join(tmpdir(), "gleaner-bench-start-up-"));

interface Sample {
  readonly ms: number;
  readonly rssMb: number;
}
const peakRssOf = (pid: number): number => {
  const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return hwm ? Number(hwm[1]) / 1024 : Number.NaN;
};
const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) => (child.exitCode !== null ? resolve() : child.once("exit", () => resolve())));

const gleaner = async (entry: string): Promise<Sample> => {
  const spawnedAt = performance.now();
  const child = spawn(process.execPath, [entry, "serve", "--dev-key"], {
    env: {
      ...process.env,
      GLEANER_PORT: "0",
      GLEANER_HOST: "127.0.0.1",
      GLEANER_LOG_LEVEL: "silent",
      GLEANER_STORAGE: "memory",
      GLEANER_QUEUE: "memory",
      GLEANER_PARSER: "htmlparser2",
      GLEANER_WORKER_CONCURRENCY: "1",
      GLEANER_ALLOW_PRIVATE_TARGETS: "127.0.0.1/32",
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  try {
    const lines = createInterface({ input: child.stdout! });
    let url = "";
    let key = "";
    for await (const line of lines) {
      url ||= /listening on (\S+)/.exec(line)?.[1] ?? "";
      key ||= /^API key: (\S+)/.exec(line)?.[1] ?? "";
      if (url && key) break;
    }
    if (!url || !key) throw new Error(`gleaner ${entry}: no URL or key printed`);
    const call = clientOf(url, key);
    const datasetId = await createDataset(call, booksDataset(site.url));
    await runToSuccess(call, datasetId);
    return { ms: performance.now() - spawnedAt, rssMb: peakRssOf(child.pid!) };
  } finally {
    child.kill("SIGTERM");
    await exited(child);
  }
};

const crawlee = (script: string): Promise<Sample> =>
  new Promise((resolve, reject) => {
    rmSync(storage, { recursive: true, force: true });
    const spawnedAt = performance.now();
    const child = spawn(process.execPath, [script, "cheerio", "sequential", site.url], {
      cwd: here,
      env: crawleeEnv(storage),
      stdio: ["ignore", "pipe", "inherit"],
    });
    let done: Sample | undefined;
    createInterface({ input: child.stdout }).on("line", (line) => {
      if (line.startsWith(DONE_MARKER))
        done = { ms: performance.now() - spawnedAt, rssMb: Number(line.slice(DONE_MARKER.length)) };
    });
    child.once("error", reject);
    child.once("close", (code) => (code === 0 && done ? resolve(done) : reject(new Error(`${script} exited ${code}`))));
  });

const contenders = [
  { id: "gleaner-bin", label: "gleaner serve (bin: the bundle)", run: () => gleaner(bin) },
  { id: "gleaner-modules", label: "gleaner serve (dist/cli.js, modules)", run: () => gleaner(modulesCli) },
  { id: "cheerio", label: "CheerioCrawler script (compiled)", run: () => crawlee(join(out, "compiled", "crawlee.js")) },
] as const;
const samples = new Map<string, Sample[]>(contenders.map((c) => [c.id, []]));

try {
  console.log(
    `books site ${site.url}; Node ${process.versions.node}, ${cpus().length} cores; load average ${loadavg()[0]!.toFixed(1)}; ${rounds} rounds, medians`,
  );
  for (let round = 0; round < rounds; round++) {
    const order = contenders.map((_, i) => contenders[(i + round) % contenders.length]!);
    const line: string[] = [];
    for (const c of order) {
      const s = await c.run();
      samples.get(c.id)!.push(s);
      line.push(`${c.id} ${s.ms.toFixed(0)} ms ${s.rssMb.toFixed(0)} MB`);
    }
    console.log(`  round ${round + 1}: ${line.join("; ")}`);
  }
  console.log(`load average at the end: ${loadavg()[0]!.toFixed(1)}`);
} finally {
  await site.close();
  rmSync(storage, { recursive: true, force: true });
  rmSync(out, { recursive: true, force: true });
}

const med = (id: string, f: (s: Sample) => number) => median(samples.get(id)!.map(f));
const perRound = (id: string, base: string, f: (s: Sample) => number) =>
  samples.get(id)!.map((s, i) => f(s) / f(samples.get(base)![i]!));
console.log(`\nwhole process, spawn → first run succeeded / crawl done (ratios vs the compiled CheerioCrawler script)`);
console.log(
  `${"contender".padEnd(40)} ${"ms".padStart(7)} ${"peak RSS MB".padStart(12)} ${"time ×".padStart(7)} ${"RSS ×".padStart(6)}`,
);
for (const c of contenders) {
  console.log(
    `${c.label.padEnd(40)} ${med(c.id, (s) => s.ms)
      .toFixed(0)
      .padStart(7)} ${med(c.id, (s) => s.rssMb)
      .toFixed(0)
      .padStart(12)} ` +
      `${(med(c.id, (s) => s.ms) / med("cheerio", (s) => s.ms)).toFixed(2).padStart(7)} ${(med(c.id, (s) => s.rssMb) / med("cheerio", (s) => s.rssMb)).toFixed(2).padStart(6)}`,
  );
}
const rounded = (xs: readonly number[]) => xs.map((r) => r.toFixed(2)).join(", ");
const time = med("gleaner-bin", (s) => s.ms) / med("cheerio", (s) => s.ms);
const rss = med("gleaner-bin", (s) => s.rssMb) / med("cheerio", (s) => s.rssMb);
console.log(
  `Target: gleaner (bin) ≤ 1.0× the CheerioCrawler script: time ${time.toFixed(2)}× ` +
    `(per round ${rounded(perRound("gleaner-bin", "cheerio", (s) => s.ms))}) — ${time <= 1 ? "MET" : "NOT MET"}; ` +
    `peak RSS ${rss.toFixed(2)}× (per round ${rounded(perRound("gleaner-bin", "cheerio", (s) => s.rssMb))}) — ` +
    `${rss <= 1 ? "MET" : "NOT MET"}`,
);
