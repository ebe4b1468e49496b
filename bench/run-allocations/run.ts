/**
 * Where a run allocates (decision 0042): V8's sampling heap profiler, through the inspector, over one
 * run of the 50-page books site in a host child, counting the objects that were collected as well as
 * those still alive (what drives the young generation's collections). `--run rerun` (default)
 * samples the unchanged re-run, `--run first` the first run; `--store memory|postgres` (default
 * postgres) picks the host's configuration. Prints the total sampled, by package, by function, and
 * the allocating built-ins (Map iterators, array spreads…) by their caller. Not a timing: compare its
 * totals before and after a change. Not part of npm test.
 *
 *   npm run bench:run-allocations -w @gleaner/bench [-- --store postgres --run rerun --top 30]
 */
import { createServer } from "node:net";
import { startBooksSite } from "@gleaner/conformance";
import { choiceArg, positiveIntegerArg } from "../args.js";
import { freshDatabase } from "../durable/database.js";
import { durableEnv, memoryEnv, spawnHost } from "../durable/processes.js";
import { clientOf, createDataset, runToSuccess } from "../host-client.js";
import { booksDataset } from "../run-books/books.js";

const store = choiceArg("store", ["postgres", "memory"]);
const sampled = choiceArg("run", ["rerun", "first"]);
const top = positiveIntegerArg("top", 30);

interface ProfileNode {
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly selfSize: number;
  readonly children: ReadonlyArray<ProfileNode>;
}

/** A free loopback port for the child's inspector. */
const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

/** The child's inspector session: one method call at a time is all this needs. */
const inspectorOf = async (port: number) => {
  const [target] = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as Array<{
    webSocketDebuggerUrl: string;
  }>;
  const socket = new WebSocket(target!.webSocketDebuggerUrl);
  await new Promise((resolve) => socket.addEventListener("open", resolve, { once: true }));
  let next = 1;
  const waiting = new Map<number, (result: any) => void>();
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown; error?: unknown };
    if (message.id !== undefined) waiting.get(message.id)?.(message.result ?? message.error);
  });
  const call = (method: string, params: object = {}) =>
    new Promise<any>((resolve) => {
      const id = next++;
      waiting.set(id, resolve);
      socket.send(JSON.stringify({ id, method, params }));
    });
  return { call, close: () => socket.close() };
};

const where = ({ functionName, url, lineNumber }: ProfileNode["callFrame"]) =>
  `${functionName || "(anonymous)"} ${url.replace(/.*node_modules\//, "").replace(/.*\/(core|adapters|hosts)\//, "$1/")}:${lineNumber + 1}`;
const packageOf = ({ url, functionName }: ProfileNode["callFrame"]) =>
  url.match(/node_modules\/((@[^/]+\/)?[^/]+)/)?.[1] ??
  url.match(/\/((core|adapters\/[^/]+|hosts\/[^/]+))\/dist\//)?.[1] ??
  (url || `(built-in) ${functionName}`);
const builtIn = /^(next|set|values|entries|push|map|create|add) /;

const add = (totals: Map<string, number>, key: string, bytes: number) =>
  totals.set(key, (totals.get(key) ?? 0) + bytes);
const print = (title: string, totals: Map<string, number>) => {
  console.log(`\n${title}`);
  for (const [key, bytes] of [...totals].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${(bytes / 1e6).toFixed(2).padStart(8)} MB  ${key}`);
  }
};

const site = await startBooksSite();
const database = store === "postgres" ? await freshDatabase() : null;
const port = await freePort();
process.env.BENCH_HOST_NODE_ARGS = `${process.env.BENCH_HOST_NODE_ARGS ?? ""} --inspect=127.0.0.1:${port}`;
const host = await spawnHost("serve", database ? durableEnv(database.url) : memoryEnv);
const inspector = await inspectorOf(port);
try {
  const call = clientOf(host.url, host.key);
  const datasetId = await createDataset(call, booksDataset(site.url));
  const startSampling = () =>
    inspector.call("HeapProfiler.startSampling", {
      samplingInterval: 4096,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
  await inspector.call("HeapProfiler.enable");
  if (sampled === "first") await startSampling();
  await runToSuccess(call, datasetId, 50);
  if (sampled === "rerun") await startSampling();
  if (sampled === "rerun") await runToSuccess(call, datasetId, 50);
  const { profile } = (await inspector.call("HeapProfiler.stopSampling")) as { profile: { head: ProfileNode } };

  const byPackage = new Map<string, number>();
  const byFunction = new Map<string, number>();
  const builtInsByCaller = new Map<string, number>();
  let total = 0;
  const walk = (node: ProfileNode, caller: string) => {
    const here = where(node.callFrame);
    total += node.selfSize;
    add(byPackage, packageOf(node.callFrame), node.selfSize);
    add(byFunction, here, node.selfSize);
    if (builtIn.test(here) && node.callFrame.url === "") add(builtInsByCaller, `${here} ← ${caller}`, node.selfSize);
    for (const child of node.children) walk(child, here);
  };
  walk(profile.head, "");
  console.log(
    `${store}, ${sampled === "rerun" ? "unchanged re-run" : "first run"}: ${(total / 1e6).toFixed(1)} MB sampled`,
  );
  print("by package", byPackage);
  print("by function", byFunction);
  print("built-ins by caller", builtInsByCaller);
} finally {
  inspector.close();
  await host.stop();
  await database?.drop();
  await site.close();
}
process.exit(0);
