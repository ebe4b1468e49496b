import { expect } from "chai";
import { before, describe, it } from "../runner.js";
import type { Body } from "../bodies.js";
import { columnId } from "../books.js";
import { type AdapterSet, type Capability, type Owner, ownerOn, type SuiteContext } from "../context.js";
import { byAnchor, createDataset, researchToEnd, rowsOf, withoutBasis } from "../research-runs.js";
import { publishersDataset, scriptFor } from "../research-script.js";
import { phaseOrder, researchStage } from "../research-stage.js";

/**
 * Site research: one run over the publishers site's declared pages with the scripted model, on a
 * host without a search engine, and what it wrote, charged, recorded, traced and replays.
 */
export const researchDeclaredPagesCases = (ctx: SuiteContext, set: AdapterSet): void => {
  const { site, siteHost, answerWith, researchRuns } = researchStage(ctx, set);
  researchRuns(() => {
    describe("site research over the declared pages (a host on the set's queue)", () => {
      let owner: Owner;
      let dataset: Body;
      let run: Body;
      before(async () => {
        answerWith(scriptFor(site()));
        owner = await ownerOn(siteHost(), 100);
        dataset = await createDataset(owner, publishersDataset(site()));
        run = await researchToEnd(owner, dataset.id);
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
        const list = await rowsOf(owner, dataset.id);
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
          [site().page(1), "read"],
          [site().page(2), "read"],
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
        const harbour = byAnchor(await rowsOf(owner, dataset.id), "Harbour & Finch Press") as Body;
        const detail = (await owner.get(`/v1/datasets/${dataset.id}/rows/${harbour.id}`)).body;
        expect(detail.identity).to.deep.equal(harbour.identity);
        const titles = columnId(dataset, "titles");
        const [ref] = detail.evidence[titles];
        const observation = detail.observations.find((o: Body) => o.id === ref.observationId);
        expect(observation.method).to.equal("model");
        expect(observation.sourceUrl).to.equal(site().page(1));
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
          [site().page(1), 3, 1, 2],
          [site().page(2), 2, 0, 2],
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
        expect(withoutBasis(replayed)).to.deep.equal(withoutBasis(recorded));
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
        const before = await rowsOf(owner, dataset.id);
        const harbour = byAnchor(before, "Harbour & Finch Press") as Body;
        const city = columnId(dataset, "city");
        const edit = await owner.patch(`/v1/datasets/${dataset.id}/rows/${harbour.id}`, {
          expectedRevisionId: harbour.revisionId,
          requestId: globalThis.crypto.randomUUID(),
          values: { [city]: "Bristol (Harbourside)" },
        });
        expect(edit.status, JSON.stringify(edit.body)).to.equal(200);
        const changesBefore = (await owner.get(`/v1/datasets/${dataset.id}/changes`)).body.through;
        const second = await researchToEnd(owner, dataset.id);
        expect(second.status).to.equal("succeeded");
        expect(second.rowDeltas).to.deep.equal({ new: 0, changed: 0, gone: 0 });
        expect((await owner.get(`/v1/datasets/${dataset.id}/changes`)).body.through).to.equal(changesBefore);
        const after = await rowsOf(owner, dataset.id);
        expect(after.map((r) => r.identity.key).sort()).to.deep.equal(before.map((r) => r.identity.key).sort());
        expect((byAnchor(after, "Harbour & Finch Press") as Body).data[city]).to.equal("Bristol (Harbourside)");
        const kept = (await owner.get(`/v1/runs/${second.id}/diagnostics`)).body.diagnostics.reconciliation
          .overridesKept;
        expect(kept.examples).to.deep.equal([{ entity: "Harbour & Finch Press", rowId: harbour.id, fieldId: city }]);
      });
    });
  });
};

export const researchDeclaredPagesCapability: Capability = {
  name: "research over declared pages",
  register: researchDeclaredPagesCases,
};
