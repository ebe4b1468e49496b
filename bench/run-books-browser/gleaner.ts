// Child process: a Gleaner host on the memory adapters, one `render: browser` run over the
// script-rendered books site, timed from POST /runs to `succeeded` (full acceptance of 1000 rows).
//   gleaner.ts <siteUrl> <browserPath> <dataset body as JSON>
import { startHost } from "@gleaner/koa";
import { MemoryStoreLive } from "@gleaner/memory";
import { BOOKS, PAGES, report } from "../run-books/crawl-rows.js";
import { watchPeakRss } from "./tree-rss.js";
import { benchHostConfig } from "../bench-host.js";

// The parent builds the dataset body (the conformance suite's): this process loads only the host.
const [siteUrl, browserPath, datasetJson] = process.argv.slice(2);
if (!siteUrl || !browserPath || !datasetJson)
  throw new Error("usage: gleaner.ts <siteUrl> <browserPath> <datasetJson>");

const host = await startHost({
  config: {
    ...benchHostConfig,
    browserPath,
  },
  overrides: { store: MemoryStoreLive },
});
const key = await host.createKey("bench", 1000);
const call = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> => {
  const response = await fetch(new URL(path, host.url), {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? null : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
};

const created = await call("POST", "/v1/datasets", JSON.parse(datasetJson));
if (created.status !== 201) throw new Error(`create dataset: ${created.status} ${JSON.stringify(created.body)}`);

const stopRss = watchPeakRss();
const started = performance.now();
const { runId } = (await call("POST", `/v1/datasets/${created.body.dataset.id}/runs`)).body;
let run: any;
for (;;) {
  run = (await call("GET", `/v1/runs/${runId}`)).body.run;
  if (["succeeded", "failed", "blocked", "held"].includes(run.status)) break;
  if (performance.now() - started > 600_000) throw new Error(`run still ${run.status} after 600 s`);
  await new Promise((resolve) => setTimeout(resolve, 5));
}
const wallMs = performance.now() - started;
const peakRssMb = stopRss();
if (run.status !== "succeeded" || run.rowDeltas.new !== BOOKS) throw new Error(`run: ${JSON.stringify(run)}`);
await host.close();
report({ contender: "gleaner-browser", wallMs, pages: PAGES, rows: run.rowDeltas.new, peakRssMb });
process.exit(0);
