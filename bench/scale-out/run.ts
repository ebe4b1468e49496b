/**
 * Scale-out on PostgreSQL + Agenda (issue 17: 2 worker processes finish in ≤ 0.55× the time of 1):
 * an API-only host (host-child.ts api) and 1 or 2 `gleaner worker` processes (hosts/koa's CLI, worker
 * concurrency 2 each unless --concurrency), all configured by GLEANER_* variables on a fresh database
 * per measurement. `--datasets` datasets, each over a books site of its own that answers every
 * request after 100 ms (`delayMs`); each dataset runs one run at a time (POST, poll every `--poll` ms
 * until `succeeded`, POST the next) until `--runs` runs in all have succeeded. More datasets than
 * worker slots keep runs waiting in the queue, so the poll's delay leaves no slot idle; a slow poll
 * keeps the drivers' own GETs (datasets × 1000 / poll per second) from taking the workers' CPU. The span is from the first
 * POST to the last success; processes start and datasets are created before it. Each round measures
 * 1 and 2 workers, in an order that alternates. Not part of npm test.
 *
 *   npm run bench:scale-out -w @gleaner/bench [-- --rounds 3 --runs 200 --datasets 10 --concurrency 2 --pages 1 --poll 100]
 */
import { loadavg } from "node:os";
import { type BooksSite, loadBooks, startBooksSite } from "@gleaner/conformance";
import { median } from "../median.js";
import { booksDataset } from "../run-books/books.js";
import { type Call, clientOf, createDataset, runToSuccess } from "../host-client.js";
import { freshDatabase } from "../durable/database.js";
import { type BenchProcess, durableEnv, spawnHost, spawnWorker } from "../durable/processes.js";
import { positiveIntegerArg } from "../args.js";

const rounds = positiveIntegerArg("rounds", 3);
const totalRuns = positiveIntegerArg("runs", 200);
const datasetCount = positiveIntegerArg("datasets", 10);
const concurrency = positiveIntegerArg("concurrency", 2);
const pages = positiveIntegerArg("pages", 1);
const pollMs = positiveIntegerArg("poll", 100);
const delayMs = 100;

/** Each dataset runs one run at a time until `totalRuns` runs in all have succeeded; the span in ms. */
const driveRuns = async (call: Call, datasetIds: readonly string[]): Promise<number> => {
  let started = 0;
  const drive = async (datasetId: string) => {
    while (started < totalRuns) {
      started++;
      await runToSuccess(call, datasetId, pollMs);
    }
  };
  const begin = performance.now();
  await Promise.all(datasetIds.map(drive));
  return performance.now() - begin;
};

const measure = async (sites: readonly BooksSite[], workers: number): Promise<number> => {
  const database = await freshDatabase();
  const env = {
    ...durableEnv(database.url),
    GLEANER_ALLOW_PRIVATE_TARGETS: "127.0.0.1/32",
    GLEANER_WORKER_CONCURRENCY: String(concurrency),
  };
  // The API host creates the schema and Agenda's table before any worker starts.
  const api = await spawnHost("api", env);
  const fleet: BenchProcess[] = [];
  try {
    for (let n = 0; n < workers; n++) fleet.push(await spawnWorker(env));
    const call = clientOf(api.url, api.key);
    const datasetIds: string[] = [];
    for (const site of sites) datasetIds.push(await createDataset(call, booksDataset(site.url)));
    return await driveRuns(call, datasetIds);
  } finally {
    await Promise.all(fleet.map((worker) => worker.stop()));
    await api.stop();
    await database.drop();
  }
};

const books = loadBooks().slice(0, 20 * pages);
const sites = await Promise.all(Array.from({ length: datasetCount }, () => startBooksSite({ books, delayMs })));
const spans: Record<1 | 2, number[]> = { 1: [], 2: [] };
try {
  console.log(
    `${datasetCount} books sites (${pages} page(s) each, ${delayMs} ms per request); ${totalRuns} runs per measurement; ` +
      `worker concurrency ${concurrency}; poll every ${pollMs} ms; load average ${loadavg()[0]!.toFixed(1)}; ${rounds} rounds`,
  );
  for (let round = 0; round < rounds; round++) {
    const order: Array<1 | 2> = round % 2 === 0 ? [1, 2] : [2, 1];
    for (const workers of order) {
      const span = await measure(sites, workers);
      spans[workers].push(span);
      console.log(
        `  round ${round + 1} ${workers} worker(s): ${(span / 1000).toFixed(1)} s, ${((totalRuns * 1000) / span).toFixed(1)} runs/s`,
      );
    }
  }
  console.log(`load average at the end: ${loadavg()[0]!.toFixed(1)}`);
} finally {
  await Promise.all(sites.map((site) => site.close()));
}

const perRound = spans[2].map((two, i) => two / spans[1][i]!);
console.log(`\n${"workers".padEnd(10)} ${"median s".padStart(9)} ${"runs/s".padStart(7)}`);
for (const workers of [1, 2] as const) {
  const s = median(spans[workers]);
  console.log(
    `${String(workers).padEnd(10)} ${(s / 1000).toFixed(1).padStart(9)} ${((totalRuns * 1000) / s).toFixed(1).padStart(7)}`,
  );
}
const ratio = median(spans[2]) / median(spans[1]);
console.log(
  `\nTarget: 2 workers finish in ≤ 0.55× the time of 1: ${ratio.toFixed(2)}× (per round ${perRound.map((r) => r.toFixed(2)).join(", ")}) — ${ratio <= 0.55 ? "MET" : "NOT MET"}`,
);
process.exit(0);
