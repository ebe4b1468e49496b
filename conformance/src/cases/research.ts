import { LanguageModel, type RecordedAnswer, replayLanguageModel } from "@gleaner/core";
import type { RunningHost } from "@gleaner/koa";
import { SearxngLive } from "@gleaner/searxng";
import { expect } from "chai";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import { after, before, beforeEach, describe, it } from "../runner.js";
import { type Body, bend } from "../bodies.js";
import { columnId, waitForRun } from "../books.js";
import { makeClient } from "../client.js";
import { startResearchHost } from "../research-host.js";
import type { Capability, Owner, SuiteContext } from "../context.js";
import { failingScriptFor, publishersDataset, scriptFor, textReadingModel } from "../research-script.js";
import { longPageCount, type ResearchSite, startResearchSite, startSearxngStub } from "../sites/research-site.js";
import type { AdapterSet } from "../context.js";

const phaseOrder = ["planning", "configure", "pin", "search", "read", "extract", "validate", "preview", "accept"];

/**
 * Research runs (docs/decisions/0014-research-runs.md) with scripted model answers in the replay
 * format, over a loopback fixture site and a loopback SearXNG. Every case runs on the set's store
 * and the set's kind of queue (Agenda on the agenda sets). Search research runs on the suite's
 * main host, which gets the scripted model and the search engine through ctx.onMainHost. Site
 * research (no search engine) and the no-model refusal need hosts configured otherwise: each gets
 * a queue of its own name from the set (`set.queue(name)`: its own Agenda table or collection),
 * since hosts consuming one shared durable queue would take each other's jobs.
 */
export const researchCases = (ctx: SuiteContext, set: AdapterSet): void => {
  let site: ResearchSite;
  let searxng: Awaited<ReturnType<typeof startSearxngStub>>;
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
  ctx.onMainHost({
    start: async () => {
      site = await startResearchSite();
      searxng = await startSearxngStub([
        { url: site.page(1), title: "Publishers", content: "Publishers in the catalogue" },
        { url: `${site.page(1)}#top`, title: "Publishers (again)", content: "" },
        { url: site.page(2), title: "More publishers", content: "" },
        { url: "ftp://files.example/publishers.txt", title: "Not a web page", content: "" },
      ]);
      return { model: scripted, search: SearxngLive({ url: searxng.url }) };
    },
    close: async () => {
      await searxng?.close();
      await site?.close();
    },
  });
  describe("research runs", () => {
    const hosts: RunningHost[] = [];
    const researchHost = (withModel: boolean) =>
      startResearchHost(set, withModel ? "research_site" : "research_modeless", withModel ? { model: scripted } : {});
    let siteHost: RunningHost;
    let modelessHost: RunningHost;
    const ownerOn = async (host: RunningHost, credits = 100): Promise<Owner> => {
      const name = `owner-${globalThis.crypto.randomUUID()}`;
      return { name, key: "", ...makeClient(host.url, await host.createKey(name, credits)) };
    };
    const createDataset = async (owner: Owner, body: Body) => {
      const answer = await owner.post("/v1/datasets", body);
      expect(answer.status, JSON.stringify(answer.body)).to.equal(201);
      return answer.body.dataset;
    };
    const research = async (owner: Owner, datasetId: string) => {
      const started = await owner.post(`/v1/datasets/${datasetId}/runs`, { kind: "research" });
      expect(started.status, JSON.stringify(started.body)).to.equal(202);
      return waitForRun(owner, started.body.runId);
    };
    const rows = async (owner: Owner, datasetId: string) =>
      (await owner.get(`/v1/datasets/${datasetId}/rows`)).body.data as Body[];
    const byAnchor = (list: Body[], anchor: string) => list.find((r) => r.identity?.anchor === anchor);

    before(async () => {
      siteHost = await researchHost(true);
      hosts.push(siteHost);
      modelessHost = await researchHost(false);
      hosts.push(modelessHost);
    });
    beforeEach(() => {
      script = scriptFor(site);
    });
    after(async () => {
      for (const host of hosts) await host.close();
    });

    describe("requesting one", () => {
      it("refuses an unknown kind or field (422 naming it), and a dataset without a question (422 /question)", async () => {
        const owner = await ownerOn(siteHost);
        const dataset = await createDataset(owner, publishersDataset(site));
        const bad = await owner.post(`/v1/datasets/${dataset.id}/runs`, { kind: "x" });
        expect(bad.status).to.equal(422);
        expect(bad.body.error.details.map((d: Body) => d.path)).to.include("/kind");
        const extra = await owner.post(`/v1/datasets/${dataset.id}/runs`, { kind: "research", depth: 3 });
        expect(extra.status).to.equal(422);
        expect(extra.body.error.details.map((d: Body) => d.path)).to.include("/depth");
        const noQuestion = await createDataset(owner, { ...publishersDataset(site), question: undefined });
        const refused = await owner.post(`/v1/datasets/${noQuestion.id}/runs`, { kind: "research" });
        expect(refused.status).to.equal(422);
        expect(refused.body.error.details.map((d: Body) => d.path)).to.deep.equal(["/question"]);
      });

      it("without a language model is 422 research_unavailable naming GLEANER_MODEL_URL (a host on the set's queue)", async () => {
        const owner = await ownerOn(modelessHost);
        const dataset = (await owner.post("/v1/datasets", publishersDataset(site))).body.dataset;
        const refused = await owner.post(`/v1/datasets/${dataset.id}/runs`, { kind: "research" });
        expect(refused.status).to.equal(422);
        expect(refused.body.error.code).to.equal("research_unavailable");
        expect(refused.body.error.details[0].path).to.equal("GLEANER_MODEL_URL");
        expect((await owner.get(`/v1/datasets/${dataset.id}/runs`)).body.data).to.have.length(0);
      });
    });

    describe("site research over the declared pages (a host on the set's queue)", () => {
      let owner: Owner;
      let dataset: Body;
      let run: Body;
      before(async () => {
        script = scriptFor(site);
        owner = await ownerOn(siteHost, 100);
        dataset = await createDataset(owner, publishersDataset(site));
        run = await research(owner, dataset.id);
      });

      it("succeeds with one row per entity, and charges one credit per page read", async () => {
        expect(run.status, JSON.stringify(run)).to.equal("succeeded");
        expect(run.checks.every((c: Body) => c.passed)).to.equal(true);
        expect(run.rowDeltas).to.deep.equal({ new: 3, changed: 0, gone: 0 });
        expect(Object.keys(run).sort()).to.deep.equal(
          ["checks", "completedAt", "datasetId", "error", "id", "queuedAt", "rowDeltas", "startedAt", "status"].sort(),
        );
        expect((await owner.get("/v1/usage")).body.balance).to.equal(98);
      });

      it("keeps grounded values, merges the same company seen under two names, and refuses what the page does not say", async () => {
        const list = await rows(owner, dataset.id);
        expect(list.map((r) => r.identity.anchor).sort()).to.deep.equal([
          "Harbour & Finch Press",
          "Kestrel Books",
          "Lindqvist Förlag",
        ]);
        const city = columnId(dataset, "city");
        const titles = columnId(dataset, "titles");
        const harbour = byAnchor(list, "Harbour & Finch Press") as Body;
        expect(harbour.identity.aliases).to.have.members(["Harbour & Finch Press", "H&F Press"]);
        expect(harbour.identity).to.include({ version: 1, kind: "company" });
        expect(harbour.identity.key).to.match(/^entity:[0-9a-f]{64}$/);
        expect(harbour.rowKey).to.equal(harbour.identity.key);
        expect(harbour.data[city]).to.equal("Bristol");
        expect(harbour.data[titles]).to.equal(14);
        const lindqvist = byAnchor(list, "Lindqvist Förlag") as Body;
        expect(lindqvist.data[city]).to.equal("Göteborg");
        expect(lindqvist.data[titles]).to.equal(null);
        expect(lindqvist.missingReasons[titles]).to.equal("extraction_failed");
        expect((byAnchor(list, "Kestrel Books") as Body).data[titles]).to.equal(22);
        expect(list.some((r) => JSON.stringify(r).includes("Phantom"))).to.equal(false);
      });

      it("diagnoses what the research run recorded: each page once, refusals at validation with their entities", async () => {
        const diagnostics = (await owner.get(`/v1/runs/${run.id}/diagnostics`, { summary: "true" })).body.diagnostics;
        // Two pages read; the planning and extraction outputs and the declared URL are not pages.
        expect(diagnostics.cost).to.deep.include({ pagesRead: 2, pagesNotRead: 0 });
        expect(diagnostics.sources.map((s: Body) => [s.url, s.outcome])).to.deep.equal([
          [site.page(1), "read"],
          [site.page(2), "read"],
        ]);
        const groups = diagnostics.summary.failureGroups as Body[];
        expect(groups.filter((g) => g.stage === "retrieval")).to.deep.equal([]);
        const quoted = groups.find((g) => g.stage === "validation" && g.code === "quote_not_on_page") as Body;
        expect(quoted.examples.map((e: Body) => e.entity)).to.include("Lindqvist Förlag");
        expect(quoted.counts.present).to.equal(1);
        const codes = diagnostics.findings.map((f: Body) => f.code);
        expect(codes).to.include("values_refused:quote_not_on_page");
        expect(codes.filter((c: string) => c.startsWith("page_not_read"))).to.deep.equal([]);
        // An entity's facts speak of research: its page, the model naming it, and why a value was refused.
        const entity = (
          await owner.get(`/v1/runs/${run.id}/diagnostics`, {
            entity: "Lindqvist Förlag",
            field: columnId(dataset, "titles"),
          })
        ).body.diagnostics.entity;
        const facts = entity.paths[0].facts as Body[];
        expect(facts.map((f) => f.code)).to.include.members(["page_found", "entity_named"]);
        expect(facts.map((f) => f.code)).to.not.include("item_selected");
        const cell = facts.find((f) => f.code === "cell_extraction_failed");
        expect(cell?.detail).to.contain("refused (quote_not_on_page)");
        expect(entity.outcome).to.equal("present");
        // Every example names the entity, never its row key; a rejected candidate by the name the model gave.
        const titles = columnId(dataset, "titles");
        const missing = (diagnostics.summary.missingCells as Body[]).find((c) => c.fieldId === titles) as Body;
        expect(missing.examples.map((e: Body) => e.entity)).to.deep.equal(["Lindqvist Förlag"]);
        const cells = (diagnostics.cells as Body[]).find((c) => c.fieldId === titles) as Body;
        expect(cells.examples.map((e: Body) => e.entity)).to.deep.equal(["Lindqvist Förlag"]);
        const phantom = groups.find((g) => g.code === "entity_not_on_page") as Body;
        expect(phantom.examples.map((e: Body) => e.entity)).to.deep.equal(["Phantom House"]);
        expect(JSON.stringify(diagnostics)).to.not.match(/"entity":"entity:/);
      });

      it("cites the verbatim quotes as model observations", async () => {
        const harbour = byAnchor(await rows(owner, dataset.id), "Harbour & Finch Press") as Body;
        const detail = (await owner.get(`/v1/datasets/${dataset.id}/rows/${harbour.id}`)).body;
        expect(detail.identity).to.deep.equal(harbour.identity);
        const titles = columnId(dataset, "titles");
        const [ref] = detail.evidence[titles];
        const observation = detail.observations.find((o: Body) => o.id === ref.observationId);
        expect(observation.method).to.equal("model");
        expect(observation.sourceUrl).to.equal(site.page(1));
        expect(observation.entries.find((e: Body) => e.id === ref.entryId).excerpt).to.equal(
          "The catalogue lists 14 titles from the press",
        );
      });

      it("records planning output, cleaned page text and extraction output, and the pinned recipe", async () => {
        const index = (await owner.get(`/v1/runs/${run.id}/artifacts`)).body;
        expect(index.truncated).to.equal(false);
        expect(index.artifacts.map((a: Body) => a.kind)).to.deep.equal([
          "planning output",
          "cleaned page text",
          "cleaned page text",
          "extraction output",
          "extraction output",
        ]);
        expect(index.artifacts.every((a: Body) => !("body" in a))).to.equal(true);
        expect(index.recipe).to.deep.include({
          version: 1,
          question: dataset.question,
          promptVersion: "gleaner-research/3",
        });
        expect(index.recipe.model).to.deep.equal({ provider: "scripted", modelId: "scripted-model-1" });
        expect(index.recipe.searchEngine).to.equal(null);
        // One planning answer and one extraction per page, with the tokens the model reported.
        expect(index.recipe.usage).to.deep.equal({ generations: 3, inputTokens: 360, outputTokens: 90 });
        expect(index.recipe.plan.entityKind).to.equal("company");
        expect(index.recipe.columns.map((c: Body) => c.name)).to.deep.equal(["publisher", "city", "titles"]);
        const cleaned = index.artifacts[1];
        const one = (await owner.get(`/v1/runs/${run.id}/artifacts/${cleaned.id}`)).body.artifact;
        expect(one.body).to.contain("Lindqvist Förlag is a family publisher in Göteborg, Sweden.");
        expect(one.body).not.to.contain("analytics");
        expect(one.body).not.to.contain("All rights reserved");
        expect(one.size).to.equal(new TextEncoder().encode(one.body).byteLength);
      });

      it("traces the phases in order with the harness version and per-page counters", async () => {
        const trace = (await owner.get(`/v1/runs/${run.id}/trace`)).body.trace;
        expect(trace.harnessVersion).to.equal("gleaner-research/3");
        const phases = trace.phases.map((p: Body) => p.phase);
        expect(phases).to.deep.equal(phaseOrder.filter((p) => p !== "search"));
        const validate = trace.steps.filter((s: Body) => s.phase === "validate");
        expect(validate.map((s: Body) => [s.sourceUrl, s.candidateRows, s.rejectedRows, s.matchedRows])).to.deep.equal([
          [site.page(1), 3, 1, 2],
          [site.page(2), 2, 0, 2],
        ]);
        expect(trace.steps.filter((s: Body) => s.phase === "extract").map((s: Body) => s.candidateRows)).to.deep.equal([
          3, 2,
        ]);
        expect(JSON.stringify(trace)).not.to.contain("Harbour");
      });

      it("replay from the artifacts reproduces the recorded diagnostics", async () => {
        const recorded = (await owner.get(`/v1/runs/${run.id}/diagnostics`, { summary: "true" })).body.diagnostics;
        const replayed = (await owner.get(`/v1/runs/${run.id}/diagnostics`, { summary: "true", basis: "replay" })).body
          .diagnostics;
        expect(recorded.summary.basis).to.equal("recorded");
        expect(replayed.summary.basis).to.equal("replay");
        const strip = (d: Body) => ({ ...d, basis: undefined, summary: { ...d.summary, basis: undefined } });
        expect(strip(replayed)).to.deep.equal(strip(recorded));
        const entity = recorded.summary.entities.find((e: Body) => e.entity === "Harbour & Finch Press");
        expect(entity.aliases).to.have.members(["Harbour & Finch Press", "H&F Press"]);
        const diagnosis = (await owner.get(`/v1/runs/${run.id}/diagnostics`, { entity: "H&F Press" })).body.diagnostics
          .entity;
        expect(diagnosis.matchedNames).to.have.members(["Harbour & Finch Press", "H&F Press"]);
        // An entity's diagnosis from replay, end to end: the same facts, cells and paths, said as replay.
        for (const entity of ["H&F Press", "Lindqvist Förlag"]) {
          const asked = { entity, field: columnId(dataset, "titles") };
          const kept = (await owner.get(`/v1/runs/${run.id}/diagnostics`, asked)).body.diagnostics.entity;
          const again = (await owner.get(`/v1/runs/${run.id}/diagnostics`, { ...asked, basis: "replay" })).body
            .diagnostics.entity;
          expect([kept.basis, again.basis]).to.deep.equal(["recorded", "replay"]);
          expect({ ...again, basis: undefined }).to.deep.equal({ ...kept, basis: undefined });
        }
      });

      it("a second run keeps the identity keys and writes no revision; overrides survive it", async () => {
        const before = await rows(owner, dataset.id);
        const harbour = byAnchor(before, "Harbour & Finch Press") as Body;
        const city = columnId(dataset, "city");
        const edit = await owner.patch(`/v1/datasets/${dataset.id}/rows/${harbour.id}`, {
          expectedRevisionId: harbour.revisionId,
          requestId: globalThis.crypto.randomUUID(),
          values: { [city]: "Bristol (Harbourside)" },
        });
        expect(edit.status, JSON.stringify(edit.body)).to.equal(200);
        const changesBefore = (await owner.get(`/v1/datasets/${dataset.id}/changes`)).body.through;
        const second = await research(owner, dataset.id);
        expect(second.status).to.equal("succeeded");
        expect(second.rowDeltas).to.deep.equal({ new: 0, changed: 0, gone: 0 });
        expect((await owner.get(`/v1/datasets/${dataset.id}/changes`)).body.through).to.equal(changesBefore);
        const after = await rows(owner, dataset.id);
        expect(after.map((r) => r.identity.key).sort()).to.deep.equal(before.map((r) => r.identity.key).sort());
        expect((byAnchor(after, "Harbour & Finch Press") as Body).data[city]).to.equal("Bristol (Harbourside)");
        const kept = (await owner.get(`/v1/runs/${second.id}/diagnostics`)).body.diagnostics.reconciliation
          .overridesKept;
        expect(kept.examples).to.deep.equal([{ entity: "Harbour & Finch Press", rowId: harbour.id, fieldId: city }]);
      });
    });

    it("a blocked page fails coverage on the set's queue: nothing written, nothing charged", async () => {
      const owner = await ownerOn(siteHost, 10);
      const dataset = await createDataset(owner, publishersDataset(site, true));
      const run = await research(owner, dataset.id);
      expect(run.status).to.equal("failed");
      const coverage = run.checks.find((c: Body) => c.checkId === "coverage");
      expect(coverage.passed).to.equal(false);
      expect(coverage.message).to.contain("forbidden");
      expect(await rows(owner, dataset.id)).to.have.length(0);
      expect((await owner.get("/v1/usage")).body.balance).to.equal(10);
      // Coverage was lost while reading, so no page was sent to the model.
      const trace = (await owner.get(`/v1/runs/${run.id}/trace`)).body.trace;
      expect(trace.steps.filter((s: Body) => s.phase === "extract")).to.have.length(0);
      const failed = trace.steps.find((s: Body) => s.phase === "read" && s.status === "failed");
      expect(failed.readFailure).to.deep.include({ reason: "forbidden", status: 403 });
      // The page read before coverage was lost counts as read, though the model never saw it.
      const diagnostics = (await owner.get(`/v1/runs/${run.id}/diagnostics`)).body.diagnostics;
      expect(diagnostics.cost).to.deep.include({ pagesRead: 1, pagesNotRead: 1, pagesCharged: 0 });
      expect(diagnostics.sources.map((s: Body) => s.outcome)).to.deep.equal(["read", "refused"]);
    });

    it("the model failing mid-run on the main host (the set's queue) fails the run: nothing written, nothing charged", async () => {
      script = failingScriptFor(site);
      const owner = await ctx.owner(10);
      const dataset = await createDataset(owner, publishersDataset(site));
      const run = await research(owner, dataset.id);
      expect(run.status).to.equal("failed");
      expect(run.error).to.contain("language model");
      expect(await rows(owner, dataset.id)).to.have.length(0);
      expect((await owner.get("/v1/usage")).body.balance).to.equal(10);
      const trace = (await owner.get(`/v1/runs/${run.id}/trace`)).body.trace;
      expect(trace.steps.filter((s: Body) => s.phase === "extract").map((s: Body) => s.status)).to.deep.equal([
        "succeeded",
        "failed",
      ]);
      // The tokens spent before the failure are still recorded: the plan and the first extraction.
      const recipe = (await owner.get(`/v1/runs/${run.id}/artifacts`)).body.recipe;
      expect(recipe.usage).to.deep.equal({ generations: 2, inputTokens: 240, outputTokens: 60 });
    });

    it("search research on the main host (the set's queue): results are normalised, de-duplicated, read and answered the same way", async () => {
      const owner = await ctx.owner(10);
      const dataset = await createDataset(owner, publishersDataset(site));
      const run = await research(owner, dataset.id);
      expect(run.status, JSON.stringify(run)).to.equal("succeeded");
      expect(searxng.queries).to.include("publishers catalogue titles city");
      const list = await rows(owner, dataset.id);
      expect(list.map((r) => r.identity.anchor).sort()).to.deep.equal([
        "Harbour & Finch Press",
        "Kestrel Books",
        "Lindqvist Förlag",
      ]);
      expect((await owner.get("/v1/usage")).body.balance).to.equal(8);
      const trace = (await owner.get(`/v1/runs/${run.id}/trace`)).body.trace;
      expect(trace.phases.map((p: Body) => p.phase)).to.deep.equal(phaseOrder);
      expect(trace.steps.filter((s: Body) => s.phase === "read").map((s: Body) => s.sourceUrl)).to.deep.equal([
        site.page(1),
        site.page(2),
      ]);
      const recipe = (await owner.get(`/v1/runs/${run.id}/artifacts`)).body.recipe;
      expect(recipe.searchEngine).to.equal("searxng");
    });

    it("reads a page longer than the model's context in chunks, each answered from its own text, and keeps every row", async () => {
      const small = await startResearchHost(set, "research_chunks", {
        model: Layer.succeed(LanguageModel, textReadingModel()),
        contextTokens: 2048,
      });
      hosts.push(small);
      const owner = await ownerOn(small, 10);
      const dataset = await createDataset(
        owner,
        bend(publishersDataset(site), (b) => {
          b.source.url = `${site.url}/long/publishers`;
          b.source.pagination = { kind: "none" };
        }),
      );
      const run = await research(owner, dataset.id);
      expect(run.status, JSON.stringify(run)).to.equal("succeeded");
      const list = (await owner.get(`/v1/datasets/${dataset.id}/rows`, { limit: 500 })).body.data as Body[];
      expect(list).to.have.length(longPageCount);
      const last = byAnchor(list, `Publisher ${longPageCount} Press`);
      expect(last?.data[dataset.columns.find((c: Body) => c.name === "city").id]).to.equal(`Town ${longPageCount}`);
      // One page read and charged; several extract steps and outputs, each naming its part.
      expect((await owner.get("/v1/usage")).body.balance).to.equal(9);
      const trace = (await owner.get(`/v1/runs/${run.id}/trace`)).body.trace;
      const extracts = trace.steps.filter((s: Body) => s.phase === "extract");
      expect(extracts.length).to.be.above(2);
      const outputs = (await owner.get(`/v1/runs/${run.id}/artifacts`)).body.artifacts.filter(
        (a: Body) => a.kind === "extraction output",
      );
      const parts = extracts.map(
        (_: Body, i: number) => `${site.url}/long/publishers#part=${i + 1}/${extracts.length}`,
      );
      expect(outputs.map((a: Body) => a.url)).to.deep.equal(parts);
      // Each extract step says its part as its output does.
      expect(extracts.map((s: Body) => s.sourceUrl)).to.deep.equal(parts);
      // Replay reads the chunks as the run did: the same diagnostics, every row's entity present.
      const recorded = (await owner.get(`/v1/runs/${run.id}/diagnostics`, { summary: "true" })).body.diagnostics;
      const replayed = (await owner.get(`/v1/runs/${run.id}/diagnostics`, { summary: "true", basis: "replay" })).body
        .diagnostics;
      const strip = (d: Body) => ({ ...d, basis: undefined, summary: { ...d.summary, basis: undefined } });
      expect(strip(replayed)).to.deep.equal(strip(recorded));
      expect(replayed.summary.totals).to.deep.include({ entities: longPageCount, present: longPageCount });
      const lastOne = `Publisher ${longPageCount} Press`;
      const entity = (await owner.get(`/v1/runs/${run.id}/diagnostics`, { entity: lastOne, basis: "replay" })).body
        .diagnostics.entity;
      expect([entity.basis, entity.outcome]).to.deep.equal(["replay", "present"]);
    });

    it("a search result answering 403 is recorded as not read; the run accepts the pages it could read", async () => {
      // The blocked set's second page answers 403.
      const forbidden = `${site.url}/blocked/publishers/2`;
      searxng.answer([
        { url: site.page(1), title: "Publishers", content: "" },
        { url: forbidden, title: "Publishers (members only)", content: "" },
        { url: site.page(2), title: "More publishers", content: "" },
      ]);
      try {
        const owner = await ctx.owner(10);
        const dataset = await createDataset(owner, publishersDataset(site));
        const run = await research(owner, dataset.id);
        expect(run.status, JSON.stringify(run)).to.equal("succeeded");
        expect(run.checks.find((c: Body) => c.checkId === "coverage").passed).to.equal(true);
        expect(await rows(owner, dataset.id)).to.have.length(3);
        // Charged for the two pages read and checked, not the refused one.
        expect((await owner.get("/v1/usage")).body.balance).to.equal(8);
        const trace = (await owner.get(`/v1/runs/${run.id}/trace`)).body.trace;
        const failed = trace.steps.find((s: Body) => s.phase === "read" && s.status === "failed");
        expect(failed).to.deep.include({ sourceUrl: forbidden });
        expect(failed.readFailure).to.deep.include({ reason: "forbidden", status: 403 });
        // Diagnostics count each page once: two read, one not; the search is the source, not the declared URL.
        const diagnostics = (await owner.get(`/v1/runs/${run.id}/diagnostics`)).body.diagnostics;
        expect(diagnostics.cost).to.deep.include({ pagesRead: 2, pagesNotRead: 1, pagesCharged: 2 });
        expect(diagnostics.sources.map((s: Body) => [s.url, s.outcome])).to.deep.equal([
          [site.page(1), "read"],
          [site.page(2), "read"],
          [forbidden, "refused"],
        ]);
        expect(diagnostics.observations).to.deep.include({ pagesRead: 2, pagesNotRead: 1 });
        expect(diagnostics.request.source).to.deep.include({ url: "", pagination: "search", itemSelector: "" });
        expect(diagnostics.request.search).to.deep.equal({
          engine: "searxng",
          queries: ["publishers catalogue titles city"],
          results: 3,
          read: 2,
          notRead: 1,
        });
        expect(diagnostics.unknowns).to.include(
          `${forbidden} was not read (forbidden): the entities on it are unknown; the other search results were read as usual.`,
        );
      } finally {
        searxng.answer();
      }
    });

    it("every search result refused is a blocked run: nothing written or charged", async () => {
      searxng.answer([{ url: `${site.url}/blocked/publishers/2`, title: "More publishers", content: "" }]);
      try {
        const owner = await ctx.owner(10);
        const dataset = await createDataset(owner, publishersDataset(site));
        const run = await research(owner, dataset.id);
        expect(run.status, JSON.stringify(run)).to.equal("blocked");
        expect(await rows(owner, dataset.id)).to.have.length(0);
        expect((await owner.get("/v1/usage")).body.balance).to.equal(10);
      } finally {
        searxng.answer();
      }
    });

    it("search results we may not read (the SSRF guard, robots.txt) are not read; coverage accounts for them", async () => {
      // A private address the guard refuses before connecting, and a page robots.txt disallows.
      const unsafe = "http://10.255.255.1/publishers";
      searxng.answer([
        { url: site.page(1), title: "Publishers", content: "" },
        { url: unsafe, title: "Internal publishers", content: "" },
        { url: `${site.url}/private/publishers`, title: "Private publishers", content: "" },
        { url: site.page(2), title: "More publishers", content: "" },
      ]);
      try {
        const owner = await ctx.owner(10);
        const dataset = await createDataset(owner, publishersDataset(site));
        const run = await research(owner, dataset.id);
        expect(run.status, JSON.stringify(run)).to.equal("succeeded");
        expect(run.checks.find((c: Body) => c.checkId === "coverage").passed).to.equal(true);
        expect(site.reads).to.deep.equal([]);
        // Only the pages read are charged.
        expect((await owner.get("/v1/usage")).body.balance).to.equal(8);
        const trace = (await owner.get(`/v1/runs/${run.id}/trace`)).body.trace;
        const reads = trace.steps.filter((s: Body) => s.phase === "read");
        const refused = reads
          .filter((s: Body) => s.status === "failed")
          .map((s: Body) => [s.sourceUrl, s.readFailure.reason]);
        expect(refused).to.have.deep.members([
          [unsafe, "unsafe_target"],
          [`${site.url}/private/publishers`, "robots_disallowed"],
        ]);
        expect(trace.steps.filter((s: Body) => s.phase === "extract").map((s: Body) => s.sourceUrl)).to.deep.equal([
          site.page(1),
          site.page(2),
        ]);
      } finally {
        searxng.answer();
      }
    });
  });
};

export const researchCapability: Capability = {
  name: "research",
  register: researchCases,
};
