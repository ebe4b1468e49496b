import { expect } from "chai";
import { it } from "../runner.js";
import type { Body } from "../bodies.js";
import { type AdapterSet, type Capability, ownerOn, type SuiteContext } from "../context.js";
import { createDataset, researchToEnd, rowsOf } from "../research-runs.js";
import { failingScriptFor, publishersDataset } from "../research-script.js";
import { researchStage } from "../research-stage.js";

/** Research runs that fail, a page refused or the model failing mid-run, leave nothing written or charged. */
export const researchFailureCases = (ctx: SuiteContext, set: AdapterSet): void => {
  const { site, siteHost, answerWith, researchRuns } = researchStage(ctx, set);
  researchRuns(() => {
    it("a blocked page fails coverage on the set's queue: nothing written, nothing charged", async () => {
      const owner = await ownerOn(siteHost(), 10);
      const dataset = await createDataset(owner, publishersDataset(site(), true));
      const run = await researchToEnd(owner, dataset.id);
      expect(run.status).to.equal("failed");
      const coverage = run.checks.find((c: Body) => c.checkId === "coverage");
      expect(coverage.passed).to.equal(false);
      expect(coverage.message).to.contain("forbidden");
      expect(await rowsOf(owner, dataset.id)).to.have.length(0);
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
      answerWith(failingScriptFor(site()));
      const owner = await ctx.owner(10);
      const dataset = await createDataset(owner, publishersDataset(site()));
      const run = await researchToEnd(owner, dataset.id);
      expect(run.status).to.equal("failed");
      expect(run.error).to.contain("language model");
      expect(await rowsOf(owner, dataset.id)).to.have.length(0);
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
  });
};

export const researchFailuresCapability: Capability = {
  name: "research failures",
  register: researchFailureCases,
};
