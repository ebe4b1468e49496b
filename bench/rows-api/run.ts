/**
 * Rows API benchmark (issue 5): `GET /v1/datasets/{id}/rows?limit=500` on a dataset of 100 000
 * rows, at cursor page 1 and page 200, under autocannon load, against a bare Koa route that
 * answers the very same bytes. Each server runs in its own child process (server.ts) with the
 * same setup; autocannon runs here, so load generation never shares the server's event loop.
 * Both servers stay up for the whole bench and the cases (with a conditional GET answered 304) are
 * measured in interleaved rounds (the
 * order rotates each round), so a burst of load elsewhere hits both contenders. Prints median req/s,
 * p50 and p99 per case, and the ratios Gleaner / bare (of medians and per round). Each case also
 * reads the server process's CPU time over its window (Linux /proc): CPU per request, a cost that load
 * from other processes moves far less than req/s.
 *
 *   npm run bench:rows-api -w @gleaner/bench [-- --rounds 3 --duration 5 --connections 10]
 *   (not part of npm test)
 *
 * Targets: throughput >= 0.85x the bare route; p99 flat from page 1 to page 200.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import autocannon from "autocannon";
import { median } from "../median.js";
import { processCpuMs } from "../process-cpu.js";
import { positiveIntegerArg } from "../args.js";

const duration = positiveIntegerArg("duration", 5);
const rounds = positiveIntegerArg("rounds", 3);
const connections = positiveIntegerArg("connections", 10);
const PAGE_SIZE = 500;
const FAR_PAGE = 200;

const children = new Set<ChildProcess>();
// A failed bench must not leave a seeded server running behind it.
process.on("exit", () => {
  for (const child of children) child.kill("SIGKILL");
});

const start = (args: string[]): Promise<{ child: ChildProcess; ready: Record<string, string> }> =>
  new Promise((resolve, reject) => {
    const server = new URL("./server.ts", import.meta.url).pathname;
    const child = spawn(process.execPath, ["--import", "tsx", server, ...args], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    children.add(child);
    child.once("exit", (code) => reject(new Error(`server ${args[0]} exited with ${code}`)));
    createInterface({ input: child.stdout! }).once("line", (line) => resolve({ child, ready: JSON.parse(line) }));
  });

const stop = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    child.removeAllListeners("exit");
    child.once("exit", () => resolve());
    children.delete(child);
    child.kill("SIGTERM");
  });

interface Measure {
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly bytes: number;
  /** The server process's CPU time (user + system) per answered request, in µs. */
  readonly cpuUs: number;
}

/**
 * CPU time a process has used, in µs (Linux /proc; clock ticks of 10 ms). Unlike req/s, it hardly moves
 * when other work shares the cores: it is the cost of a request, not how soon the server got a core.
 */
const cpuTimeUs = (pid: number): number => processCpuMs(pid) * 1000;

const load = async (url: string, headers: Record<string, string>, pid: number): Promise<Measure> => {
  // A short warm-up lets the JIT settle before the measured window.
  await autocannon({ url, headers, connections, duration: 2, timeout: 60 });
  const cpuBefore = cpuTimeUs(pid);
  const result = await autocannon({ url, headers, connections, duration, timeout: 60 });
  const cpuUs = (cpuTimeUs(pid) - cpuBefore) / Math.max(1, result.requests.total);
  // A conditional request (If-None-Match) must be answered 304, every other one 2xx.
  const conditional = "if-none-match" in headers;
  const other = (stats: Record<string, { count?: number }>) =>
    Object.entries(stats).reduce((n, [code, { count }]) => (code === "304" ? n : n + (count ?? 0)), 0);
  const wrong = conditional ? other(result.statusCodeStats ?? {}) : result.non2xx;
  if (wrong > 0 || result.errors > 0) throw new Error(`${url}: ${wrong} unexpected statuses, ${result.errors} errors`);
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    bytes: result.throughput.average,
    cpuUs,
  };
};

const main = async () => {
  console.log(`Seeding 100 000 rows (memory store)…`);
  const gleaner = await start(["gleaner"]);
  const { url, key, datasetId } = gleaner.ready as { url: string; key: string; datasetId: string };
  const headers = { authorization: `Bearer ${key}` };
  const rowsUrl = `${url}/v1/datasets/${datasetId}/rows?limit=${PAGE_SIZE}`;

  // Walk the cursor to page 200, keeping the bytes of pages 1 and 200 for the bare route.
  const bodies = new Map<number, string>();
  let cursor: string | null = null;
  for (let page = 1; page <= FAR_PAGE; page++) {
    const answer: Response = await fetch(cursor ? `${rowsUrl}&cursor=${encodeURIComponent(cursor)}` : rowsUrl, {
      headers,
    });
    const text: string = await answer.text();
    if (answer.status !== 200) throw new Error(`page ${page}: ${answer.status} ${text}`);
    if (page === 1 || page === FAR_PAGE) bodies.set(page, text);
    if (page < FAR_PAGE) cursor = (JSON.parse(text) as { nextCursor: string }).nextCursor;
  }
  const farUrl = `${rowsUrl}&cursor=${encodeURIComponent(cursor!)}`;
  const dir = mkdtempSync(join(tmpdir(), "gleaner-rows-bench-"));
  for (const [page, text] of bodies) writeFileSync(join(dir, `page${page}.json`), text);

  const tag = (await fetch(rowsUrl, { headers })).headers.get("etag");
  if (!tag) throw new Error("GET /rows answered no ETag");
  const bare = await start(["bare", dir]);
  const [gleanerPid, barePid] = [gleaner.child.pid!, bare.child.pid!];
  const cases: ReadonlyArray<readonly [string, string, Record<string, string>, number]> = [
    ["gleaner page 1", rowsUrl, headers, gleanerPid],
    ["bare page 1", `${bare.ready.url}/page1`, {}, barePid],
    [`gleaner page ${FAR_PAGE}`, farUrl, headers, gleanerPid],
    [`bare page ${FAR_PAGE}`, `${bare.ready.url}/page${FAR_PAGE}`, {}, barePid],
    // The page unchanged since the client last read it: 304 with no body.
    ["gleaner page 1, 304", rowsUrl, { ...headers, "if-none-match": tag }, gleanerPid],
  ];
  const samples = new Map<string, Measure[]>(cases.map(([name]) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < cases.length; k++) {
      const [name, url, caseHeaders, pid] = cases[(k + round) % cases.length]!;
      const m = await load(url, caseHeaders, pid);
      samples.get(name)!.push(m);
      console.log(
        `  round ${round + 1} ${name.padEnd(18)} ${m.rps.toFixed(0).padStart(6)} req/s p99 ${m.p99} ms, ` +
          `server CPU ${m.cpuUs.toFixed(0)} µs/request`,
      );
    }
  }
  // The two processes differ in what they hold: Gleaner's memory store keeps the 100 000 rows, the bare
  // route only the two pages' bytes. Printed so that the comparison says so.
  const rssMb = (pid: number) =>
    Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? Number.NaN) / 1024;
  const [gleanerRss, bareRss] = [rssMb(gleanerPid), rssMb(barePid)];
  await stop(gleaner.child);
  await stop(bare.child);

  const med = (name: string) => {
    const xs = samples.get(name)!;
    return {
      rps: median(xs.map((x) => x.rps)),
      p50: median(xs.map((x) => x.p50)),
      p99: median(xs.map((x) => x.p99)),
      cpuUs: median(xs.map((x) => x.cpuUs)),
    };
  };
  console.log(
    `\nGET /rows?limit=${PAGE_SIZE}, ${connections} connections, ${duration} s per case, ${rounds} interleaved rounds (medians), body ${bodies.get(1)!.length} bytes`,
  );
  console.log(
    `bodies: page 1 ${bodies.get(1)!.length} bytes, page ${FAR_PAGE} ${bodies.get(FAR_PAGE)!.length} bytes; ` +
      `resident memory: gleaner ${gleanerRss.toFixed(0)} MB, bare ${bareRss.toFixed(0)} MB`,
  );
  console.log("case               req/s      p50 ms   p99 ms   server CPU µs/req");
  for (const [name] of cases) {
    const m = med(name);
    console.log(
      `${name.padEnd(18)} ${m.rps.toFixed(0).padStart(8)} ${String(m.p50).padStart(8)} ${String(m.p99).padStart(8)} ` +
        `${m.cpuUs.toFixed(0).padStart(10)}`,
    );
  }
  const ratio = (a: number, b: number) => (b === 0 ? Number.NaN : a / b);
  const perRound = (g: string, b: string) =>
    samples
      .get(g)!
      .map((x, i) => ratio(x.rps, samples.get(b)![i]!.rps).toFixed(2))
      .join(", ");
  console.log("\nratios");
  for (const page of [1, FAR_PAGE]) {
    const g = `gleaner page ${page}`;
    const b = `bare page ${page}`;
    console.log(
      `  throughput gleaner/bare, page ${String(page).padEnd(4)} ${ratio(med(g).rps, med(b).rps).toFixed(2)}x ` +
        `(per round ${perRound(g, b)}; target >= 0.85x)`,
    );
  }
  const cpuRounds = (g: string, b: string) =>
    samples
      .get(g)!
      .map((x, i) => ratio(samples.get(b)![i]!.cpuUs, x.cpuUs).toFixed(2))
      .join(", ");
  for (const page of [1, FAR_PAGE]) {
    const g = `gleaner page ${page}`;
    const b = `bare page ${page}`;
    console.log(
      `  server CPU per request bare/gleaner, page ${String(page).padEnd(4)} ${ratio(med(b).cpuUs, med(g).cpuUs).toFixed(2)}x ` +
        `(per round ${cpuRounds(g, b)}; what req/s would be with a core each)`,
    );
  }
  console.log(
    `  gleaner page 1 unchanged (If-None-Match, 304) / bare page 1: ${ratio(med("gleaner page 1, 304").rps, med("bare page 1").rps).toFixed(2)}x`,
  );
  console.log(
    `  p99 gleaner page ${FAR_PAGE} / page 1:    ${ratio(med(`gleaner page ${FAR_PAGE}`).p99, med("gleaner page 1").p99).toFixed(2)}x (target: flat, ~1.0x)`,
  );
};

await main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
process.exit();
