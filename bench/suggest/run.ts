// bench:suggest — POST /v1/sources/suggest over a corpus of real listing pages (bench/suggest/corpus),
// each served on loopback as saved. Reports, against each page's hand-verified ground truth, the
// share of pages whose top suggestion's records are the truth's (precision and recall >= 0.9), the
// same for any of the top 3, the share of truth fields found by the top suggestion, and the suggest
// latency beside its floor: one GET of the same page and one parse of it, timed in the same rounds.
//   npm run bench:suggest -w @gleaner/bench -- [--repeats 5]
import { parseWithHtmlparser2 } from "@gleaner/htmlparser2";
import * as Effect from "effect/Effect";
import { positiveIntegerArg } from "../args.js";
import { median, percentile } from "../median.js";
import { corpus } from "./corpus.js";
import { servePagesAndHost } from "./serve-pages.js";
import { type Scored, scoreSuggestion } from "./score.js";

const repeats = positiveIntegerArg("repeats", 5);
const pages = corpus();
const { host, key, pageUrl, close } = await servePagesAndHost(pages);

interface Suggestion {
  readonly source: unknown;
  readonly why: string;
}
const suggest = async (slug: string): Promise<{ ms: number; suggestions: Suggestion[] }> => {
  const started = performance.now();
  const res = await fetch(`${host.url}/v1/sources/suggest`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ url: pageUrl(slug) }),
  });
  const body = (await res.json()) as { suggestions?: Suggestion[] };
  const ms = performance.now() - started;
  if (res.status !== 200) throw new Error(`${slug}: suggest answered ${res.status} ${JSON.stringify(body)}`);
  return { ms, suggestions: body.suggestions ?? [] };
};
/** The floor: what any suggestion must at least do, read the page once and parse it once. */
const floor = async (slug: string): Promise<number> => {
  const started = performance.now();
  const html = await (await fetch(pageUrl(slug))).text();
  Effect.runSync(parseWithHtmlparser2(html, pageUrl(slug))).dispose();
  return performance.now() - started;
};

const suggestMs = new Map<string, number[]>();
const floorMs = new Map<string, number[]>();
const answers = new Map<string, Suggestion[]>();
await suggest(pages[0]!.slug); // warm-up: the host's first request loads its modules
for (let round = 0; round < repeats; round++) {
  for (const page of pages) {
    // Interleaved, order alternating by round, so drift in the machine's load falls on both alike.
    const order = round % 2 === 0 ? (["floor", "suggest"] as const) : (["suggest", "floor"] as const);
    for (const which of order) {
      if (which === "floor") floorMs.set(page.slug, [...(floorMs.get(page.slug) ?? []), await floor(page.slug)]);
      else {
        const { ms, suggestions } = await suggest(page.slug);
        suggestMs.set(page.slug, [...(suggestMs.get(page.slug) ?? []), ms]);
        answers.set(page.slug, suggestions);
      }
    }
  }
}
await close();

const good = (s: Scored) => s.precision >= 0.9 && s.recall >= 0.9;
const rows = pages.map((page) => {
  const suggestions = answers.get(page.slug) ?? [];
  const html = page.html.toString("utf8");
  const scores = suggestions.slice(0, 3).map((s) => scoreSuggestion(html, pageUrl(page.slug), s, page.truth));
  const top = scores[0] ?? {
    precision: 0,
    recall: 0,
    fieldsFound: 0,
    fieldsTotal: Object.keys(page.truth.records[0] ?? {}).length,
  };
  return {
    slug: page.slug,
    kind: page.truth.kind,
    records: page.truth.records.length,
    top1: good(top),
    top3: scores.some(good),
    rank: scores.findIndex(good) + 1,
    precision: top.precision,
    recall: top.recall,
    fieldsFound: top.fieldsFound,
    fieldsTotal: top.fieldsTotal,
    item: (suggestions[0]?.source as { itemSelector?: string } | undefined)?.itemSelector ?? "(none)",
    suggestMs: median(suggestMs.get(page.slug) ?? [0]),
    floorMs: median(floorMs.get(page.slug) ?? [0]),
  };
});

const pct = (n: number, d: number) => `${((100 * n) / Math.max(1, d)).toFixed(0)}%`;
console.log("page | kind | records | top-1 P/R | rank | fields | item selector | suggest ms | floor ms");
for (const r of rows) {
  console.log(
    `${r.slug} | ${r.kind} | ${r.records} | ${r.precision.toFixed(2)}/${r.recall.toFixed(2)} | ${r.rank || "-"} | ${r.fieldsFound}/${r.fieldsTotal} | ${r.item} | ${r.suggestMs.toFixed(0)} | ${r.floorMs.toFixed(1)}`,
  );
}
const ratios = rows.map((r) => r.suggestMs / Math.max(0.01, r.floorMs));
const fieldsFound = rows.reduce((a, r) => a + r.fieldsFound, 0);
const fieldsTotal = rows.reduce((a, r) => a + r.fieldsTotal, 0);
const summary = {
  pages: rows.length,
  top1: pct(rows.filter((r) => r.top1).length, rows.length),
  top3: pct(rows.filter((r) => r.top3).length, rows.length),
  fieldsFound: `${fieldsFound}/${fieldsTotal} (${pct(fieldsFound, fieldsTotal)})`,
  suggestP50Ms: Math.round(median(rows.map((r) => r.suggestMs))),
  suggestP90Ms: Math.round(
    percentile(
      rows.map((r) => r.suggestMs),
      90,
    ),
  ),
  floorP50Ms: Number(median(rows.map((r) => r.floorMs)).toFixed(1)),
  suggestOverFloorMedian: Number(median(ratios).toFixed(1)),
  repeats,
};
console.log(JSON.stringify(summary));
