/**
 * Memory soak of the embedded store (issue 17, "bounded memory"): the real host on the memory store,
 * one dataset over the 50-page books site, run N times in a row with nothing changed on the site.
 * Every `--every` runs it forces a full GC and prints the heap in use, so a store that keeps every
 * run's evidence shows a rising line and a bounded one a flat line (after the retention window of
 * 20 runs fills). Not part of npm test.
 *
 *   npm run bench:soak-memory -w @gleaner/bench [-- --runs 500 --every 50]
 */
import { startBooksSite } from "@gleaner/conformance";
import { startHost } from "@gleaner/koa";
import { MemoryStoreLive } from "@gleaner/memory";
import { booksDataset } from "../run-books/books.js";
import { benchHostConfig } from "../bench-host.js";
import { positiveIntegerArg } from "../args.js";

const runs = positiveIntegerArg("runs", 500);
const every = positiveIntegerArg("every", 50);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with --expose-gc (the npm script does)");

const site = await startBooksSite();
const host = await startHost({
  config: {
    ...benchHostConfig,
  },
  overrides: { store: MemoryStoreLive },
});
const key = await host.createKey("soak", runs * 60);
const call = async (method: string, path: string, body?: unknown): Promise<any> => {
  const response = await fetch(new URL(path, host.url), {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: body === undefined ? null : JSON.stringify(body),
  });
  return response.json();
};

const heapMb = () => {
  gc();
  return process.memoryUsage().heapUsed / 2 ** 20;
};
try {
  const { dataset } = await call("POST", "/v1/datasets", booksDataset(site.url));
  console.log(`runs  heap MB after GC  (50 pages, 1000 rows per run; baseline ${heapMb().toFixed(1)} MB)`);
  const started = performance.now();
  for (let n = 1; n <= runs; n++) {
    const { runId } = await call("POST", `/v1/datasets/${dataset.id}/runs`);
    for (;;) {
      const { run } = await call("GET", `/v1/runs/${runId}`);
      if (run.status === "succeeded") break;
      if (run.status !== "queued" && run.status !== "running") throw new Error(`run ${n}: ${JSON.stringify(run)}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    if (n % every === 0 || n === 1) console.log(`${String(n).padStart(4)}  ${heapMb().toFixed(1).padStart(8)}`);
  }
  console.log(`${runs} runs in ${((performance.now() - started) / 1000).toFixed(0)} s`);
} finally {
  await host.close();
  await site.close();
}
process.exit(0);
