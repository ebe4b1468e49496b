// bench:suggest-worst — POST /v1/sources/suggest and POST /v1/sources/preview on the worst pages within
// the document limits (suggest-worst/pages.ts), each served on loopback. For each: the request's wall
// time, the longest the host's event loop was held during it (what every other request on the host
// waits), and the floor: one GET of the page and one htmlparser2 parse, timed in the same rounds.
//   npm run bench:suggest-worst -w @gleaner/bench -- [--repeats 3] [--page flat-list]
import { parseWithHtmlparser2 } from "@gleaner/htmlparser2";
import * as Effect from "effect/Effect";
import { positiveIntegerArg } from "../args.js";
import { median } from "../median.js";
import { servePagesAndHost } from "../suggest/serve-pages.js";
import { worstPages } from "./pages.js";

const repeats = positiveIntegerArg("repeats", 3);
const only = process.argv.includes("--page") ? process.argv[process.argv.indexOf("--page") + 1] : undefined;
const pages = worstPages().filter((p) => only === undefined || p.slug === only);
const { host, key, pageUrl, close } = await servePagesAndHost(pages);

// The host runs in this process: the longest gap between ticks of a 5 ms timer during a request is the
// longest the host held the event loop, what any other request would have waited.
let lastTick = performance.now();
let longestGap = 0;
const ticker = setInterval(() => {
  const now = performance.now();
  longestGap = Math.max(longestGap, now - lastTick);
  lastTick = now;
}, 5);
const timed = async <T>(work: () => Promise<T>): Promise<{ ms: number; heldMs: number; value: T }> => {
  lastTick = performance.now();
  longestGap = 0;
  const started = performance.now();
  const value = await work();
  const ms = performance.now() - started;
  // One more tick so a hold that ended the request is counted.
  await new Promise((resolve) => setTimeout(resolve, 20));
  return { ms, heldMs: longestGap, value };
};
const post = async (path: string, body: unknown) => {
  const res = await fetch(`${host.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (res.status !== 200) throw new Error(`${path} answered ${res.status} ${JSON.stringify(json)}`);
  return json;
};
interface Suggestion {
  readonly source: { itemSelector: string } & Record<string, unknown>;
  readonly why: string;
  readonly preview: { pages: Array<{ records: number }> };
}

const rows: string[] = [];
for (const page of pages) {
  const suggestMs: number[] = [];
  const suggestHeld: number[] = [];
  const previewMs: number[] = [];
  const previewHeld: number[] = [];
  const floorMs: number[] = [];
  let top: Suggestion | undefined;
  let count = 0;
  for (let round = 0; round < repeats; round++) {
    const floor = await timed(async () => {
      const html = await (await fetch(pageUrl(page.slug))).text();
      Effect.runSync(parseWithHtmlparser2(html, pageUrl(page.slug))).dispose();
    });
    floorMs.push(floor.ms);
    const suggested = await timed(() => post("/v1/sources/suggest", { url: pageUrl(page.slug) }));
    const suggestions = (suggested.value.suggestions ?? []) as Suggestion[];
    suggestMs.push(suggested.ms);
    suggestHeld.push(suggested.heldMs);
    count = suggestions.length;
    top = suggestions[0];
    if (top) {
      const previewed = await timed(() => post("/v1/sources/preview", { source: top!.source, pages: 1 }));
      previewMs.push(previewed.ms);
      previewHeld.push(previewed.heldMs);
    }
  }
  const f = (xs: number[]) => (xs.length === 0 ? "-" : median(xs).toFixed(0));
  rows.push(
    `${page.slug} | ${(page.html.length / 1e6).toFixed(1)} MB | ${count} | ${top?.source.itemSelector ?? "(none)"} | ${top?.preview.pages[0]?.records ?? 0} | ${f(suggestMs)} | ${f(suggestHeld)} | ${f(previewMs)} | ${f(previewHeld)} | ${f(floorMs)}`,
  );
  console.log(rows[rows.length - 1]);
}
clearInterval(ticker);
await close();
console.log(
  "\npage | size | suggestions | top item selector | records in its preview | suggest ms | suggest held ms | preview ms | preview held ms | floor ms",
);
for (const row of rows) console.log(row);
