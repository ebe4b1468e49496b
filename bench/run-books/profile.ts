// Where a Gleaner run's CPU goes: the run-books dataset run in one process under the V8 profiler.
//   npm run bench:profile-run-books -w @gleaner/bench [-- --runs N --top K --out file.cpuprofile]
// One host (memory store, htmlparser2, as gleaner.ts), the books site in the same process. Each run is on a
// fresh dataset (1000 new rows, as the bench's timed first run); the first is cold (what the bench times),
// the rest warm. Prints self time by category and the top functions, for the cold run and for the warm ones.
// Not part of npm test; run it under the bench lock like any bench.
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { startBooksSite } from "@gleaner/conformance";
import { startHost } from "@gleaner/koa";
import { MemoryStoreLive } from "@gleaner/memory";
import { benchHostConfig } from "../bench-host.js";
import { clientOf, createDataset, runToSuccess } from "../host-client.js";
import { booksDataset } from "./books.js";

const arg = (name: string, fallback: number) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const runs = arg("--runs", 6);
const top = arg("--top", 25);
const outAt = process.argv.indexOf("--out");
const out = outAt > 0 ? process.argv[outAt + 1] : undefined;

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { functionName: string; url: string; lineNumber: number };
  readonly children?: number[];
}
interface Profile {
  readonly nodes: ProfileNode[];
  readonly samples: number[];
  readonly timeDeltas: number[];
}

/** A category per script, so a profile reads as "parsing / fetch / Effect / …". */
const categories: ReadonlyArray<[string, RegExp]> = [
  ["htmlparser2 parse (tokenizer, domhandler)", /node_modules\/(htmlparser2|domhandler|entities)\//],
  ["css-select / domutils", /node_modules\/(css-select|css-what|nth-check|boolbase|domutils)\//],
  ["dom-serializer (excerpts)", /node_modules\/dom-serializer\//],
  ["undici / node http", /node_modules\/undici\/|node:_http|node:net|node:stream|node:internal\/streams/],
  ["effect runtime", /node_modules\/effect\//],
  ["koa host", /hosts\/koa\/|node_modules\/(koa|@koa|koa-)/],
  ["core reading (classify, page-text, robots)", /core\/dist\/reading\//],
  ["core engine", /core\/dist\/engine\//],
  ["core other", /core\/dist\//],
  ["memory store", /adapters\/memory\//],
  ["http adapter", /adapters\/http\//],
  ["htmlparser2 adapter", /adapters\/htmlparser2\//],
  ["books site (not Gleaner)", /conformance\//],
  ["GC", /^\(garbage collector\)$/],
  ["idle / program", /^\((idle|program)\)$/],
];
const categoryOf = (node: ProfileNode): string => {
  const key = node.callFrame.url || `(${node.callFrame.functionName.replace(/[()]/g, "")})`;
  for (const [name, pattern] of categories) if (pattern.test(key)) return name;
  return node.callFrame.url === "" ? "native / builtins" : "other";
};

const summarise = (title: string, profiles: ReadonlyArray<Profile>) => {
  const byCategory = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let total = 0;
  for (const profile of profiles) {
    const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
    profile.samples.forEach((id, i) => {
      const node = nodes.get(id);
      const ms = (profile.timeDeltas[i] ?? 0) / 1000;
      // (idle), and the profiler's own Profiler.stop (it samples itself while it builds the profile).
      if (!node || node.callFrame.functionName === "(idle)" || node.callFrame.url === "node:inspector") return;
      total += ms;
      const category = categoryOf(node);
      byCategory.set(category, (byCategory.get(category) ?? 0) + ms);
      const where = node.callFrame.url.replace(/^.*\/(node_modules|core|adapters|hosts)\//, "$1/");
      const name = `${node.callFrame.functionName || "(anonymous)"} ${where}:${node.callFrame.lineNumber + 1}`;
      byFunction.set(name, (byFunction.get(name) ?? 0) + ms);
    });
  }
  const per = profiles.length;
  const line = (label: string, ms: number) =>
    `${(ms / per).toFixed(1).padStart(8)} ms ${((100 * ms) / total).toFixed(1).padStart(5)}%  ${label}`;
  console.log(`\n${title}: ${(total / per).toFixed(0)} ms of CPU per run (idle excluded), ${per} run(s)`);
  for (const [label, ms] of [...byCategory].sort((a, b) => b[1] - a[1])) console.log(line(label, ms));
  console.log(`top ${top} functions by self time:`);
  for (const [label, ms] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(line(label, ms));
};

const site = await startBooksSite();
const host = await startHost({
  config: { ...benchHostConfig, parser: "htmlparser2" },
  overrides: { store: MemoryStoreLive },
});
const call = clientOf(host.url, await host.createKey("profile", 1_000_000));
const session = new Session();
session.connect();
await session.post("Profiler.enable");
await session.post("Profiler.setSamplingInterval", { interval: 100 });
const profiles: Profile[] = [];
const walls: number[] = [];
for (let i = 0; i < runs; i++) {
  const datasetId = await createDataset(call, booksDataset(site.url));
  await session.post("Profiler.start");
  // Polled every 50 ms as bench:run-books polls (decision 0042), so the host's answers weigh as they do there.
  const run = await runToSuccess(call, datasetId, 50);
  const { profile } = (await session.post("Profiler.stop")) as unknown as { profile: Profile };
  profiles.push(profile);
  walls.push(run.wallMs);
  if (i === 0 && out) writeFileSync(out, JSON.stringify(profile));
}
await host.close();
await site.close();
console.log(`wall ms per run: ${walls.map((w) => w.toFixed(0)).join(", ")}`);
summarise("cold run (the first in the process, as the bench times it)", profiles.slice(0, 1));
if (profiles.length > 1) summarise("warm runs", profiles.slice(1));
process.exit(0);
