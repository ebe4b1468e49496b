// Child process: a Gleaner host on the memory adapters, one dataset over the books site, two runs.
//   gleaner.ts <htmlparser2|jsdom> <siteUrl> <dataset body as JSON>
// The parent builds the dataset body (the conformance suite's), so this process loads only the host.
// Timed span: from POST /v1/datasets/{id}/runs to the run's completedAt (stamped after the write; seen
// by GET /v1/runs/{id} answering `succeeded`), i.e. full acceptance: read 50 pages in pagination order, extract, coerce, check (coverage, identity, extraction,
// minimum items, required columns), reconcile, write 1000 rows and charge 50 credits. The second run, with
// nothing changed on the site, must write no revision.
import { startHost } from "@gleaner/koa";
import { MemoryStoreLive } from "@gleaner/memory";
import { BOOKS, PAGES, peakRssMb, report, reportDone } from "./crawl-rows.js";
import { benchHostConfig } from "../bench-host.js";
import { clientOf, expectStatus, runToSuccess } from "../host-client.js";

const [parser, siteUrl, datasetJson] = process.argv.slice(2);
if ((parser !== "htmlparser2" && parser !== "jsdom") || !siteUrl || !datasetJson) {
  throw new Error("usage: gleaner.ts <htmlparser2|jsdom> <siteUrl> <datasetJson>");
}

const host = await startHost({
  config: {
    ...benchHostConfig,
    parser,
  },
  overrides: { store: MemoryStoreLive },
});
const key = await host.createKey("bench", 1000);

const call = clientOf(host.url, key);

/** The dataset's revision sequence (GET /changes `through`), or null when the host has no changes feed yet. */
const changesSince = async (datasetId: string, after?: number) => {
  const answer = await call("GET", `/v1/datasets/${datasetId}/changes${after === undefined ? "" : `?after=${after}`}`);
  if (answer.status === 404 && answer.body?.error?.code !== "not_found") return null;
  if (answer.status !== 200) return null;
  return { through: answer.body.through as number, count: (answer.body.data as unknown[]).length };
};

const { dataset } = expectStatus(await call("POST", "/v1/datasets", JSON.parse(datasetJson)), 201, "create dataset");
// Polled every 50 ms, timed to the run's completedAt: a 5 ms poll answered by this same process cost
// the run ~12% of its CPU (decision 0042), and the poll's interval does not enter the span.
const pollMs = 50;
const cpuBefore = process.cpuUsage();
const first = await runToSuccess(call, dataset.id, pollMs);
const cpu = process.cpuUsage(cpuBefore);
reportDone();
const { new: added, changed, gone } = first.run.rowDeltas;
if (added !== BOOKS || changed !== 0 || gone !== 0) {
  throw new Error(`first run rowDeltas ${JSON.stringify(first.run.rowDeltas)}, expected ${BOOKS} new`);
}
const afterFirst = await changesSince(dataset.id);
const second = await runToSuccess(call, dataset.id, pollMs);
const afterSecond = afterFirst === null ? null : await changesSince(dataset.id, afterFirst.through);
const d2 = second.run.rowDeltas;
if (d2.new !== 0 || d2.changed !== 0 || d2.gone !== 0) {
  throw new Error(`second run rowDeltas ${JSON.stringify(d2)}, expected nothing new, changed or gone`);
}
if (afterSecond !== null && (afterSecond.count !== 0 || afterSecond.through !== afterFirst?.through)) {
  throw new Error(`second run wrote revisions: ${JSON.stringify({ afterFirst, afterSecond })}`);
}
const usage = expectStatus(await call("GET", "/v1/usage"), 200, "usage");
const rssMb = peakRssMb();
await host.close();
report({
  contender: `gleaner-${parser}`,
  wallMs: first.acceptedMs,
  pages: PAGES,
  rows: added,
  peakRssMb: rssMb,
  extra: {
    secondRunMs: second.acceptedMs,
    secondRowDeltas: d2,
    // null: GET /v1/datasets/{id}/changes is not served by this host (yet); rowDeltas are the evidence then.
    revisionsFirstRun: afterFirst?.through ?? null,
    revisionsSecondRun: afterSecond?.count ?? null,
    creditsLeft: usage.balance,
    engineWallMs: first.engineMs,
    postMs: first.postMs,
    pickupMs: first.pickupMs,
    // The process's CPU from POST to the poll that saw `succeeded` (the run, the host, the polls).
    firstRunCpuMs: (cpu.user + cpu.system) / 1000,
  },
});
process.exit(0);
