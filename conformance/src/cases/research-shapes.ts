import { LanguageModel } from "@gleaner/core";
import type { RunningHost } from "@gleaner/koa";
import { SearxngLive } from "@gleaner/searxng";
import { expect } from "chai";
import * as Layer from "effect/Layer";
import type { Body } from "../bodies.js";
import { columnId } from "../books.js";
import type { AdapterSet, Capability, Owner, SuiteContext } from "../context.js";
import { museumReader, museumsDataset } from "../museum-reader.js";
import { startResearchHost } from "../research-host.js";
import { ownerResearches } from "../research-runs.js";
import { museums, startMuseumWeb, unreadable } from "../sites/museum-web.js";
import { startSearxngStub } from "../sites/research-site.js";
import { after, before, describe, it } from "../runner.js";

/**
 * Search research over a web that is not the company web (sites/museum-web.ts): facts in tables,
 * definition lists, dates, numbers grouped by spaces, a windows-1252 page, cards of <br> lines, fact
 * tables in sections under headings, and the results a search
 * engine also lists (one page under several URLs, redirects, files that are not HTML, an empty page,
 * one too large). Every readable museum gets its row, every value quoted, and nothing counted twice.
 */
export const researchShapesCases = (_ctx: SuiteContext, set: AdapterSet): void => {
  describe("research over a web of museum pages written in many shapes", () => {
    let web: Awaited<ReturnType<typeof startMuseumWeb>>;
    let searxng: Awaited<ReturnType<typeof startSearxngStub>>;
    let host: RunningHost;
    let owner: Owner;
    let dataset: Body;
    let run: Body;
    const credits = 100;

    const rows = async () => (await owner.get(`/v1/datasets/${dataset.id}/rows`, { limit: 100 })).body.data as Body[];
    const diagnosis = async (entity: string, column: string) =>
      (await owner.get(`/v1/runs/${run.id}/diagnostics`, { entity, field: columnId(dataset, column) })).body.diagnostics
        .entity;

    before(async () => {
      web = await startMuseumWeb();
      searxng = await startSearxngStub(web.search);
      host = await startResearchHost(set, "research_shapes", {
        model: Layer.succeed(LanguageModel, museumReader()),
        search: SearxngLive({ url: searxng.url }),
      });
      ({ owner, dataset, run } = await ownerResearches(host, museumsDataset(`${web.url}/museums`), credits));
    });
    after(async () => {
      await host?.close();
      await searxng?.close();
      await web?.close();
    });

    it("writes every museum's city, opening year and visitors from tables, lists, dates and spaced numbers", async () => {
      expect(run.status, JSON.stringify(run)).to.equal("succeeded");
      const written = (await rows()).map((r) => ({
        name: r.identity.anchor,
        city: r.data[columnId(dataset, "city")],
        opened: r.data[columnId(dataset, "opened")],
        visitors: r.data[columnId(dataset, "visitors")],
      }));
      expect(written).to.have.deep.members(museums.map((m) => ({ ...m })));
    });

    it("counts one page once, whatever URLs the search lists it under, and charges it once", async () => {
      const conflicts = ((await diagnosis("Harbour Museum", "visitors")).entityFacts as Body[])
        .filter((f) => f.code === "value_conflict")
        .map((f) => f.detail as string);
      expect(conflicts.filter((d) => d.includes("harbour-museum"))).to.have.length(1);
      expect((await owner.get("/v1/usage")).body.balance).to.equal(credits - 7);
      const extracts = ((await owner.get(`/v1/runs/${run.id}/trace`)).body.trace.steps as Body[]).filter(
        (s) => s.phase === "extract",
      );
      expect(extracts).to.have.length(7);
    });

    it("credits a card's <br> lines and a section's fact table to the one museum they stand under", async () => {
      const written = async (name: string) => {
        const row = (await rows()).find((r) => r.identity.anchor === name) as Body;
        return ["city", "opened", "visitors"].map((c) => row.data[columnId(dataset, c)]);
      };
      // These museums are only on the cards and in the sections.
      expect(await written("Tide Mill Museum")).to.deep.equal(["Woodbridge", 1793, 6_100]);
      expect(await written("Saltworks Museum")).to.deep.equal(["Lymington", 1911, 3_300]);
      const diagnostics = (await owner.get(`/v1/runs/${run.id}/diagnostics`, { summary: "true" })).body.diagnostics;
      const refusedThere = (diagnostics.summary.failureGroups as Body[])
        .filter((g) => g.stage === "validation")
        .flatMap((g) => g.examples as Body[])
        .filter((e) => /at-a-glance|compared/.test(e.url ?? ""));
      expect(refusedThere).to.deep.equal([]);
    });

    it("never credits the Annex's figures to the Harbour Museum, whose name is part of the Annex's", async () => {
      const facts = (await diagnosis("Harbour Museum", "visitors")).entityFacts as Body[];
      const said = facts.filter((f) => f.code === "value_conflict").map((f) => f.detail as string);
      expect(said.join("\n")).to.not.contain("40000").and.to.not.contain("40,000").and.to.not.contain("2004");
      // On the guide, its name is only part of the Annex's: the model's Harbour Museum there is rejected.
      const diagnostics = (await owner.get(`/v1/runs/${run.id}/diagnostics`, { summary: "true" })).body.diagnostics;
      const rejected = (diagnostics.summary.failureGroups as Body[]).find(
        (g) => g.stage === "validation" && g.code === "entity_not_on_page",
      ) as Body;
      // One rejection, one example naming its page.
      expect(rejected.examples.map((e: Body) => [e.entity, e.url])).to.deep.equal([
        ["Harbour Museum", `${web.url}/guide/small-museums`],
      ]);
    });

    it("records each result it could not read as not read, with the reason, and reads no page twice", async () => {
      const trace = (await owner.get(`/v1/runs/${run.id}/trace`)).body.trace;
      const failed = (trace.steps as Body[]).filter((s) => s.phase === "read" && s.status === "failed");
      const reasons = Object.fromEntries(failed.map((s) => [new URL(s.sourceUrl).pathname, s.readFailure.reason]));
      expect(reasons).to.deep.equal(unreadable);
    });
  });
};

export const researchShapesCapability: Capability = {
  name: "research over pages written in many shapes",
  register: researchShapesCases,
};
