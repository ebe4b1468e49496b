import { expect } from "chai";
import { it } from "../runner.js";
import type { Body } from "../bodies.js";
import type { AdapterSet, Capability, SuiteContext } from "../context.js";
import { createDataset, researchToEnd, rowsOf } from "../research-runs.js";
import { publishersDataset } from "../research-script.js";
import { phaseOrder, researchStage } from "../research-stage.js";

/**
 * Search research on the main host, through the SearXNG stub: the results normalised and
 * de-duplicated, and results that cannot or may not be read (403, the SSRF guard, robots.txt).
 */
export const researchSearchCases = (ctx: SuiteContext, set: AdapterSet): void => {
  const { site, searxng, researchRuns } = researchStage(ctx, set);
  /** A run over results some of which are not read: it succeeds, coverage complete, on the pages it read. */
  const succeedsOverSomeResults = async () => {
    const owner = await ctx.owner(10);
    const dataset = await createDataset(owner, publishersDataset(site()));
    const run = await researchToEnd(owner, dataset.id);
    expect(run.status, JSON.stringify(run)).to.equal("succeeded");
    expect(run.checks.find((c: Body) => c.checkId === "coverage").passed).to.equal(true);
    return { owner, dataset, run };
  };
  researchRuns(() => {
    it("search research on the main host (the set's queue): results are normalised, de-duplicated, read and answered the same way", async () => {
      const owner = await ctx.owner(10);
      const dataset = await createDataset(owner, publishersDataset(site()));
      const run = await researchToEnd(owner, dataset.id);
      expect(run.status, JSON.stringify(run)).to.equal("succeeded");
      expect(searxng().queries).to.include("publishers catalogue titles city");
      const list = await rowsOf(owner, dataset.id);
      expect(list.map((r) => r.identity.anchor).sort()).to.deep.equal([
        "Harbour & Finch Press",
        "Kestrel Books",
        "Lindqvist Förlag",
      ]);
      expect((await owner.get("/v1/usage")).body.balance).to.equal(8);
      const trace = (await owner.get(`/v1/runs/${run.id}/trace`)).body.trace;
      expect(trace.phases.map((p: Body) => p.phase)).to.deep.equal(phaseOrder);
      expect(trace.steps.filter((s: Body) => s.phase === "read").map((s: Body) => s.sourceUrl)).to.deep.equal([
        site().page(1),
        site().page(2),
      ]);
      const recipe = (await owner.get(`/v1/runs/${run.id}/artifacts`)).body.recipe;
      expect(recipe.searchEngine).to.equal("searxng");
    });

    it("a search result answering 403 is recorded as not read; the run accepts the pages it could read", async () => {
      // The blocked set's second page answers 403.
      const forbidden = `${site().url}/blocked/publishers/2`;
      searxng().answer([
        { url: site().page(1), title: "Publishers", content: "" },
        { url: forbidden, title: "Publishers (members only)", content: "" },
        { url: site().page(2), title: "More publishers", content: "" },
      ]);
      try {
        const { owner, dataset, run } = await succeedsOverSomeResults();
        expect(await rowsOf(owner, dataset.id)).to.have.length(3);
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
          [site().page(1), "read"],
          [site().page(2), "read"],
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
        searxng().answer();
      }
    });

    it("every search result refused is a blocked run: nothing written or charged", async () => {
      searxng().answer([{ url: `${site().url}/blocked/publishers/2`, title: "More publishers", content: "" }]);
      try {
        const owner = await ctx.owner(10);
        const dataset = await createDataset(owner, publishersDataset(site()));
        const run = await researchToEnd(owner, dataset.id);
        expect(run.status, JSON.stringify(run)).to.equal("blocked");
        expect(await rowsOf(owner, dataset.id)).to.have.length(0);
        expect((await owner.get("/v1/usage")).body.balance).to.equal(10);
      } finally {
        searxng().answer();
      }
    });

    it("search results we may not read (the SSRF guard, robots.txt) are not read; coverage accounts for them", async () => {
      // A private address the guard refuses before connecting, and a page robots.txt disallows.
      const unsafe = "http://10.255.255.1/publishers";
      searxng().answer([
        { url: site().page(1), title: "Publishers", content: "" },
        { url: unsafe, title: "Internal publishers", content: "" },
        { url: `${site().url}/private/publishers`, title: "Private publishers", content: "" },
        { url: site().page(2), title: "More publishers", content: "" },
      ]);
      try {
        const { owner, run } = await succeedsOverSomeResults();
        expect(site().reads).to.deep.equal([]);
        // Only the pages read are charged.
        expect((await owner.get("/v1/usage")).body.balance).to.equal(8);
        const trace = (await owner.get(`/v1/runs/${run.id}/trace`)).body.trace;
        const reads = trace.steps.filter((s: Body) => s.phase === "read");
        const refused = reads
          .filter((s: Body) => s.status === "failed")
          .map((s: Body) => [s.sourceUrl, s.readFailure.reason]);
        expect(refused).to.have.deep.members([
          [unsafe, "unsafe_target"],
          [`${site().url}/private/publishers`, "robots_disallowed"],
        ]);
        expect(trace.steps.filter((s: Body) => s.phase === "extract").map((s: Body) => s.sourceUrl)).to.deep.equal([
          site().page(1),
          site().page(2),
        ]);
      } finally {
        searxng().answer();
      }
    });
  });
};

export const researchSearchCapability: Capability = {
  name: "search research",
  register: researchSearchCases,
};
