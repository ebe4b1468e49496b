import { LanguageModel, type RecordedAnswer, replayLanguageModel } from "@gleaner/core";
import type { LayerOverrides, RunningHost } from "@gleaner/koa";
import { SearxngLive } from "@gleaner/searxng";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import type { AdapterSet, SuiteContext } from "./context.js";
import { startResearchHost } from "./research-host.js";
import { scriptFor } from "./research-script.js";
import { beforeEach, describe } from "./runner.js";
import { type ResearchSite, type SearxngStub, startResearchSite, startSearxngStub } from "./sites/research-site.js";

/** The phases of a search research run's trace, in order (site research has no "search"). */
export const phaseOrder = [
  "planning",
  "configure",
  "pin",
  "search",
  "read",
  "extract",
  "validate",
  "preview",
  "accept",
];

/**
 * What the research case files share in one suite: the publishers site, the SearXNG stub and a
 * scripted model, put on the main host so search research runs on the set's queue, and hosts
 * configured otherwise (site research without a search engine, no model at all), each on a queue of
 * its own name from the set (`set.queue(name)`), since hosts consuming one shared durable queue would
 * take each other's jobs. Everything starts with the main host and closes with it.
 */
export interface ResearchStage {
  readonly site: () => ResearchSite;
  readonly searxng: () => SearxngStub;
  /** A host with the scripted model and no search engine: research over the declared pages. */
  readonly siteHost: () => RunningHost;
  /** A host without a language model. */
  readonly modelessHost: () => RunningHost;
  /** Has the scripted model answer from `answers` for the rest of the case; each case starts on scriptFor(site). */
  readonly answerWith: (answers: RecordedAnswer[]) => void;
  /** Starts one more research host on a queue of its own name; it closes with the others. */
  readonly researchHost: (
    queue: string,
    research: Pick<LayerOverrides, "model" | "search" | "contextTokens">,
  ) => Promise<RunningHost>;
  /** Registers cases in the "research runs" block, each starting on the scripted model's script. */
  readonly researchRuns: (cases: () => void) => void;
}

const stages = new WeakMap<SuiteContext, ResearchStage>();

/** The suite's research stage, set up by the first case file that asks for it. */
export const researchStage = (ctx: SuiteContext, set: AdapterSet): ResearchStage => {
  const known = stages.get(ctx);
  if (known) return known;
  const stage = setUp(ctx, set);
  stages.set(ctx, stage);
  return stage;
};

const setUp = (ctx: SuiteContext, set: AdapterSet): ResearchStage => {
  let site: ResearchSite;
  let searxng: SearxngStub;
  let siteHost: RunningHost;
  let modelessHost: RunningHost;
  const hosts: RunningHost[] = [];
  let script: RecordedAnswer[] = [];
  // The scripted model answers from whatever `script` holds when asked, reporting 120 prompt and
  // 30 completion tokens per answer.
  const scripted = Layer.succeed(LanguageModel, {
    provider: "scripted",
    modelId: "scripted-model-1",
    generate: (request) =>
      Effect.map(replayLanguageModel(script, "scripted-model-1").generate(request), (generation) => ({
        ...generation,
        usage: { inputTokens: 120, outputTokens: 30 },
      })),
  });
  const researchHost: ResearchStage["researchHost"] = async (queue, research) => {
    const host = await startResearchHost(set, queue, research);
    hosts.push(host);
    return host;
  };
  ctx.onMainHost({
    start: async () => {
      site = await startResearchSite();
      searxng = await startSearxngStub([
        { url: site.page(1), title: "Publishers", content: "Publishers in the catalogue" },
        { url: `${site.page(1)}#top`, title: "Publishers (again)", content: "" },
        { url: site.page(2), title: "More publishers", content: "" },
        { url: "ftp://files.example/publishers.txt", title: "Not a web page", content: "" },
      ]);
      siteHost = await researchHost("research_site", { model: scripted });
      modelessHost = await researchHost("research_modeless", {});
      return { model: scripted, search: SearxngLive({ url: searxng.url }) };
    },
    close: async () => {
      for (const host of hosts) await host.close();
      await searxng?.close();
      await site?.close();
    },
  });
  return {
    site: () => site,
    searxng: () => searxng,
    siteHost: () => siteHost,
    modelessHost: () => modelessHost,
    answerWith: (answers) => {
      script = answers;
    },
    researchHost,
    researchRuns: (cases) =>
      describe("research runs", () => {
        beforeEach(() => {
          script = scriptFor(site);
        });
        cases();
      }),
  };
};
