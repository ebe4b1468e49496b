// bench:research — research runs over the company web (conformance/src/sites/company-web.ts) with a
// scripted model that reads the page text it is sent (conformance/src/research-reader.ts), honest or
// with slips (reworded quotes, invented values, an invented company). Reports cell precision and
// recall against the web's truth, and pages read per run, beside a no-grounding baseline: the same
// model answers (the run's extraction outputs) merged by name and written as they come.
//   npm run bench:research -w @gleaner/bench -- [--webs 4]
import {
  type Body,
  companiesDataset,
  type CompanyColumn,
  companyColumns,
  companyWeb,
  readerModel,
  startCompanyWeb,
  startSearxngStub,
} from "@gleaner/conformance";
import { bareNameKey, LanguageModel, quantityOf } from "@gleaner/core";
import { startHost } from "@gleaner/koa";
import { MemoryStoreLive } from "@gleaner/memory";
import { SearxngLive } from "@gleaner/searxng";
import * as Layer from "effect/Layer";
import { positiveIntegerArg } from "../args.js";
import { benchHostConfig } from "../bench-host.js";
import { type Score, type ScoredRow, score, sum } from "./score.js";

const webs = positiveIntegerArg("webs", 4);
const companiesPerWeb = 8; // each search topic fits one page of results (10)

interface Answer {
  readonly rows: ReadonlyArray<{
    readonly entity: { readonly name: string; readonly aliases: ReadonlyArray<string> };
    readonly cells: ReadonlyArray<{ readonly column: string; readonly value: string | null }>;
  }>;
}

/** No grounding: every answer's rows merged by name (legal form aside), each cell the value most answers give. */
const ungrounded = (answers: ReadonlyArray<Answer>): ScoredRow[] => {
  const groups: Array<{ keys: Set<string>; names: string[]; values: Map<CompanyColumn, string[]> }> = [];
  for (const row of answers.flatMap((a) => a.rows)) {
    const names = [row.entity.name, ...row.entity.aliases];
    const keys = names.map(bareNameKey);
    let group = groups.find((g) => keys.some((k) => g.keys.has(k)));
    if (!group) {
      group = { keys: new Set(), names: [], values: new Map() };
      groups.push(group);
    }
    for (const k of keys) group.keys.add(k);
    group.names.push(...names);
    for (const cell of row.cells) {
      if (cell.value === null || !(companyColumns as ReadonlyArray<string>).includes(cell.column)) continue;
      const column = cell.column as CompanyColumn;
      group.values.set(column, [...(group.values.get(column) ?? []), cell.value]);
    }
  }
  return groups.map((g) => ({
    names: g.names,
    values: Object.fromEntries(
      [...g.values].map(([column, values]) => {
        const counts = new Map<string, number>();
        for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
        const best = values.reduce((a, b) => ((counts.get(b) ?? 0) > (counts.get(a) ?? 0) ? b : a));
        return [column, column === "city" ? best : quantityOf(best)];
      }),
    ),
  }));
};

const json = async (url: string, key: string) => {
  const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
  if (!res.ok) throw new Error(`${url} answered ${res.status}`);
  return (await res.json()) as Body;
};

interface Outcome {
  readonly grounded: Score;
  readonly baseline: Score;
  readonly pagesRead: number;
  readonly pagesFound: number;
}

const researchOnce = async (first: number, slips: boolean): Promise<Outcome> => {
  const spec = companyWeb(companiesPerWeb, first);
  const web = await startCompanyWeb(spec);
  const search = await startSearxngStub(web.search);
  const host = await startHost({
    config: benchHostConfig,
    overrides: {
      store: MemoryStoreLive,
      model: Layer.succeed(LanguageModel, readerModel({ slips })),
      search: SearxngLive({ url: search.url }),
    },
  });
  try {
    const key = await host.createKey("bench-research", 1000);
    const post = async (path: string, body: unknown) =>
      (await (
        await fetch(`${host.url}${path}`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify(body),
        })
      ).json()) as Body;
    const dataset = (await post("/v1/datasets", companiesDataset(web.urls[0] as string))).dataset;
    const { runId } = await post(`/v1/datasets/${dataset.id}/runs`, { kind: "research" });
    let run = await json(`${host.url}/v1/runs/${runId}`, key);
    while (run.run.status === "queued" || run.run.status === "running") {
      await new Promise((resolve) => setTimeout(resolve, 50));
      run = await json(`${host.url}/v1/runs/${runId}`, key);
    }
    if (run.run.status !== "succeeded") throw new Error(`run ${run.run.status}: ${run.run.error}`);
    const columnOf = new Map<string, string>(dataset.columns.map((c: Body) => [c.id, c.name]));
    const rows = (await json(`${host.url}/v1/datasets/${dataset.id}/rows?limit=500`, key)).data as Body[];
    const written: ScoredRow[] = rows.map((r) => ({
      names: r.identity.aliases,
      values: Object.fromEntries(Object.entries(r.data).map(([id, v]) => [columnOf.get(id), v])),
    }));
    const index = (await json(`${host.url}/v1/runs/${runId}/artifacts`, key)).artifacts as Body[];
    const answers: Answer[] = [];
    for (const a of index.filter((x) => x.kind === "extraction output")) {
      const artifact = (await json(`${host.url}/v1/runs/${runId}/artifacts/${a.id}`, key)).artifact;
      answers.push(JSON.parse(artifact.body));
    }
    const trace = (await json(`${host.url}/v1/runs/${runId}/trace`, key)).trace;
    const reads = trace.steps.filter((s: Body) => s.phase === "read");
    return {
      grounded: score(spec, written),
      baseline: score(spec, ungrounded(answers)),
      pagesRead: reads.filter((s: Body) => s.status === "succeeded").length,
      pagesFound: reads.length,
    };
  } finally {
    await host.close();
    await search.close();
    await web.close();
  }
};

const ratio = (a: number, b: number) => (b === 0 ? "n/a" : (a / b).toFixed(3));
const line = (label: string, s: Score) =>
  `${label.padEnd(28)} precision ${ratio(s.correct, s.written)}  recall ${ratio(s.found, s.stated)}  ` +
  `(${s.correct}/${s.written} written right, ${s.found}/${s.stated} stated facts found, ${s.inventedRows} invented rows)` +
  `${s.wrong.length > 0 ? `\n${"".padEnd(28)} wrong: ${s.wrong.slice(0, 4).join("; ")}${s.wrong.length > 4 ? "; …" : ""}` : ""}`;

for (const slips of [false, true]) {
  const outcomes: Outcome[] = [];
  for (let w = 0; w < webs; w++) outcomes.push(await researchOnce((w * companiesPerWeb) % 96, slips));
  const pages = outcomes.map((o) => o.pagesRead);
  console.log(
    `\nmodel: ${slips ? "with slips (rewords, invents)" : "honest but naive"}; ${webs} webs of ${companiesPerWeb} companies`,
  );
  console.log(line("grounded (Gleaner)", sum(outcomes.map((o) => o.grounded))));
  console.log(line("no grounding (baseline)", sum(outcomes.map((o) => o.baseline))));
  console.log(
    `pages read per run: ${pages.join(", ")} (of ${outcomes.map((o) => o.pagesFound).join(", ")} search results)`,
  );
}
