/**
 * What reading a finished run costs (issue 17: speed around the engine): GET /v1/runs/{id}/trace,
 * the artifacts index (endpoint 12) and one artifact (endpoint 13) of a books run (50 pages, 1000
 * rows), on PostgreSQL against the memory store as the peer. The same host (host-child.ts) in a child
 * process of its own per configuration, API and worker in one process; one accepted run each, then
 * `--requests` requests per endpoint, one at a time, interleaved across the endpoints. Reported per
 * endpoint: the median latency seen here and the host's CPU per request (its /proc utime + stime over
 * the requests; Linux only), and the answer's size. Not part of npm test.
 *
 *   npm run bench:run-reads -w @gleaner/bench [-- --requests 100 --rounds 3]
 */
import { loadavg } from "node:os";
import { startBooksSite } from "@gleaner/conformance";
import { positiveIntegerArg } from "../args.js";
import { freshDatabase } from "../durable/database.js";
import { durableEnv, memoryEnv, spawnHost } from "../durable/processes.js";
import { clientOf, createDataset, expectStatus, runToSuccess } from "../host-client.js";
import { median } from "../median.js";
import { processCpuMs } from "../process-cpu.js";
import { booksDataset } from "../run-books/books.js";

const requests = positiveIntegerArg("requests", 100);
const rounds = positiveIntegerArg("rounds", 3);

type Config = "memory" | "postgres";
type Endpoint = "trace" | "artifacts index" | "one artifact";
const endpoints: ReadonlyArray<Endpoint> = ["trace", "artifacts index", "one artifact"];

interface Figures {
  readonly latencyMs: number;
  readonly cpuMsPerRequest: number;
  readonly bytes: number;
}
const results: Record<Config, Record<Endpoint, Figures[]>> = {
  memory: { trace: [], "artifacts index": [], "one artifact": [] },
  postgres: { trace: [], "artifacts index": [], "one artifact": [] },
};

const site = await startBooksSite();

const measure = async (config: Config) => {
  const database = config === "postgres" ? await freshDatabase() : null;
  const host = await spawnHost("serve", database ? durableEnv(database.url) : memoryEnv);
  try {
    const call = clientOf(host.url, host.key);
    const datasetId = await createDataset(call, booksDataset(site.url));
    const { run } = await runToSuccess(call, datasetId, 50);
    const index = expectStatus(await call("GET", `/v1/runs/${run.id}/artifacts`), 200, "artifacts");
    const artifactId = index.artifacts[Math.floor(index.artifacts.length / 2)].id as string;
    const paths: Record<Endpoint, string> = {
      trace: `/v1/runs/${run.id}/trace`,
      "artifacts index": `/v1/runs/${run.id}/artifacts`,
      "one artifact": `/v1/runs/${run.id}/artifacts/${artifactId}`,
    };
    const latency: Record<Endpoint, number[]> = { trace: [], "artifacts index": [], "one artifact": [] };
    const cpu: Record<Endpoint, number> = { trace: 0, "artifacts index": 0, "one artifact": 0 };
    const bytes: Record<Endpoint, number> = { trace: 0, "artifacts index": 0, "one artifact": 0 };
    for (let i = 0; i < requests; i++) {
      for (const endpoint of endpoints) {
        const before = processCpuMs(host.pid);
        const started = performance.now();
        const answer = await call("GET", paths[endpoint]);
        latency[endpoint].push(performance.now() - started);
        cpu[endpoint] += processCpuMs(host.pid) - before;
        expectStatus(answer, 200, endpoint);
        bytes[endpoint] = JSON.stringify(answer.body).length;
      }
    }
    for (const endpoint of endpoints) {
      results[config][endpoint].push({
        latencyMs: median(latency[endpoint]),
        cpuMsPerRequest: cpu[endpoint] / requests,
        bytes: bytes[endpoint],
      });
    }
  } finally {
    await host.stop();
    await database?.drop();
  }
};

try {
  console.log(
    `books site ${site.url}: one run of 50 pages × 20 books; ${requests} requests per endpoint; load average ${loadavg()[0]!.toFixed(1)}; ${rounds} rounds`,
  );
  for (let round = 0; round < rounds; round++) {
    const order: Config[] = round % 2 === 0 ? ["memory", "postgres"] : ["postgres", "memory"];
    for (const config of order) await measure(config);
    console.log(`  round ${round + 1} done`);
  }
  console.log(`load average at the end: ${loadavg()[0]!.toFixed(1)}`);
} finally {
  await site.close();
}

console.log(
  `\n${"endpoint (medians of rounds)".padEnd(30)} ${"memory ms".padStart(10)} ${"pg ms".padStart(8)} ${"ratio".padStart(6)} ${"memory CPU".padStart(11)} ${"pg CPU".padStart(8)} ${"bytes".padStart(9)}`,
);
for (const endpoint of endpoints) {
  const m = median(results.memory[endpoint].map((f) => f.latencyMs));
  const p = median(results.postgres[endpoint].map((f) => f.latencyMs));
  const mc = median(results.memory[endpoint].map((f) => f.cpuMsPerRequest));
  const pc = median(results.postgres[endpoint].map((f) => f.cpuMsPerRequest));
  console.log(
    `${endpoint.padEnd(30)} ${m.toFixed(2).padStart(10)} ${p.toFixed(2).padStart(8)} ${(p / m).toFixed(2).padStart(6)} ${mc.toFixed(2).padStart(11)} ${pc.toFixed(2).padStart(8)} ${String(results.postgres[endpoint][0]!.bytes).padStart(9)}`,
  );
}
process.exit(0);
