import { expect } from "chai";
import { it, describe } from "../runner.js";
import type { Body } from "../bodies.js";
import { type AdapterSet, type Capability, ownerOn, type SuiteContext } from "../context.js";
import { createDataset } from "../research-runs.js";
import { publishersDataset } from "../research-script.js";
import { researchStage } from "../research-stage.js";

/** Asking for a research run (docs/decisions/0014-research-runs.md): what is refused, and why. */
export const researchRequestCases = (ctx: SuiteContext, set: AdapterSet): void => {
  const { site, siteHost, modelessHost, researchRuns } = researchStage(ctx, set);
  researchRuns(() => {
    describe("requesting one", () => {
      it("refuses an unknown kind or field (422 naming it), and a dataset without a question (422 /question)", async () => {
        const owner = await ownerOn(siteHost());
        const dataset = await createDataset(owner, publishersDataset(site()));
        const bad = await owner.post(`/v1/datasets/${dataset.id}/runs`, { kind: "x" });
        expect(bad.status).to.equal(422);
        expect(bad.body.error.details.map((d: Body) => d.path)).to.include("/kind");
        const extra = await owner.post(`/v1/datasets/${dataset.id}/runs`, { kind: "research", depth: 3 });
        expect(extra.status).to.equal(422);
        expect(extra.body.error.details.map((d: Body) => d.path)).to.include("/depth");
        const noQuestion = await createDataset(owner, { ...publishersDataset(site()), question: undefined });
        const refused = await owner.post(`/v1/datasets/${noQuestion.id}/runs`, { kind: "research" });
        expect(refused.status).to.equal(422);
        expect(refused.body.error.details.map((d: Body) => d.path)).to.deep.equal(["/question"]);
      });

      it("without a language model is 422 research_unavailable naming GLEANER_MODEL_URL (a host on the set's queue)", async () => {
        const owner = await ownerOn(modelessHost());
        const dataset = (await owner.post("/v1/datasets", publishersDataset(site()))).body.dataset;
        const refused = await owner.post(`/v1/datasets/${dataset.id}/runs`, { kind: "research" });
        expect(refused.status).to.equal(422);
        expect(refused.body.error.code).to.equal("research_unavailable");
        expect(refused.body.error.details[0].path).to.equal("GLEANER_MODEL_URL");
        expect((await owner.get(`/v1/datasets/${dataset.id}/runs`)).body.data).to.have.length(0);
      });
    });
  });
};

export const researchRequestsCapability: Capability = {
  name: "research requests",
  register: researchRequestCases,
};
