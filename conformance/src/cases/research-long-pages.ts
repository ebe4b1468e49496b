import { LanguageModel } from "@gleaner/core";
import { expect } from "chai";
import * as Layer from "effect/Layer";
import { it } from "../runner.js";
import { type Body, bend } from "../bodies.js";
import { type AdapterSet, type Capability, ownerOn, type SuiteContext } from "../context.js";
import { byAnchor, createDataset, researchToEnd, withoutBasis } from "../research-runs.js";
import { publishersDataset, textReadingModel } from "../research-script.js";
import { researchStage } from "../research-stage.js";
import { longPageCount } from "../sites/research-site.js";

/** A page longer than the model's context, read in chunks by a host whose model reads the text it is sent. */
export const researchLongPageCases = (ctx: SuiteContext, set: AdapterSet): void => {
  const { site, researchHost, researchRuns } = researchStage(ctx, set);
  researchRuns(() => {
    it("reads a page longer than the model's context in chunks, each answered from its own text, and keeps every row", async () => {
      const small = await researchHost("research_chunks", {
        model: Layer.succeed(LanguageModel, textReadingModel()),
        contextTokens: 2048,
      });
      const owner = await ownerOn(small, 10);
      const dataset = await createDataset(
        owner,
        bend(publishersDataset(site()), (b) => {
          b.source.url = `${site().url}/long/publishers`;
          b.source.pagination = { kind: "none" };
        }),
      );
      const run = await researchToEnd(owner, dataset.id);
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
        (_: Body, i: number) => `${site().url}/long/publishers#part=${i + 1}/${extracts.length}`,
      );
      expect(outputs.map((a: Body) => a.url)).to.deep.equal(parts);
      // Each extract step says its part as its output does.
      expect(extracts.map((s: Body) => s.sourceUrl)).to.deep.equal(parts);
      // Replay reads the chunks as the run did: the same diagnostics, every row's entity present.
      const recorded = (await owner.get(`/v1/runs/${run.id}/diagnostics`, { summary: "true" })).body.diagnostics;
      const replayed = (await owner.get(`/v1/runs/${run.id}/diagnostics`, { summary: "true", basis: "replay" })).body
        .diagnostics;
      expect(withoutBasis(replayed)).to.deep.equal(withoutBasis(recorded));
      expect(replayed.summary.totals).to.deep.include({ entities: longPageCount, present: longPageCount });
      const lastOne = `Publisher ${longPageCount} Press`;
      const entity = (await owner.get(`/v1/runs/${run.id}/diagnostics`, { entity: lastOne, basis: "replay" })).body
        .diagnostics.entity;
      expect([entity.basis, entity.outcome]).to.deep.equal(["replay", "present"]);
    });
  });
};

export const researchLongPagesCapability: Capability = {
  name: "research over long pages",
  register: researchLongPageCases,
};
