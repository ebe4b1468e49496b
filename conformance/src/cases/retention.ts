import type { RunningHost } from "@gleaner/koa";
import { expect } from "chai";
import { after, before, describe, it } from "../runner.js";
import { booksDataset, waitForRun } from "../books.js";
import { makeClient } from "../client.js";
import type { Capability, Owner, SuiteContext } from "../context.js";
import { type BooksSite, startBooksSite } from "../sites/index.js";

const dayMs = 24 * 60 * 60 * 1000;

/**
 * Retention (GLEANER_RETENTION_DAYS, 30 by default), in virtual time: past it a run keeps its Run
 * resource, its rows keep their evidence and history, and its trace, artifacts and diagnostics say
 * the record was removed, whether or not a prune has come by yet.
 */
export const retentionCases = (ctx: SuiteContext): void => {
  describe("retention of run records (virtual time)", () => {
    let host: RunningHost;
    let site: BooksSite;
    before(async () => {
      host = await ctx.virtualHost();
      site = await startBooksSite();
    });
    after(() => site.close());

    it("past 30 days a run's trace, artifacts and diagnostics say its record was removed; the run and its rows stay", async () => {
      const name = `owner-${globalThis.crypto.randomUUID()}`;
      const owner: Owner = { name, key: "", ...makeClient(host.url, await host.createKey(name, 100)) };
      const created = await owner.post(
        "/v1/datasets",
        booksDataset(site, "next-link", (b) => void (b.source.maxPages = 50)),
      );
      const dataset = created.body.dataset;
      const started = await owner.post(`/v1/datasets/${dataset.id}/runs`);
      const run = await waitForRun(owner, started.body.runId);
      expect(run.status).to.equal("succeeded");
      const rows = await owner.get(`/v1/datasets/${dataset.id}/rows`, { limit: 5 });
      const row = rows.body.data[0];
      const rowBefore = (await owner.get(`/v1/datasets/${dataset.id}/rows/${row.id}`)).body;
      const changes = (await owner.get(`/v1/datasets/${dataset.id}/changes`)).body;
      expect((await owner.get(`/v1/runs/${run.id}/artifacts`)).body.artifacts).to.have.length(50);

      await host.advanceClock(29 * dayMs);
      expect((await owner.get(`/v1/runs/${run.id}/trace`)).body.trace.steps.length).to.be.above(0);

      await host.advanceClock(2 * dayMs);
      expect((await owner.get(`/v1/runs/${run.id}`)).body.run).to.deep.equal(run);
      const trace = (await owner.get(`/v1/runs/${run.id}/trace`)).body.trace;
      expect(trace.steps).to.deep.equal([]);
      expect((await owner.get(`/v1/runs/${run.id}/artifacts`)).body.artifacts).to.deep.equal([]);
      const diagnostics = (await owner.get(`/v1/runs/${run.id}/diagnostics`)).body.diagnostics;
      expect(diagnostics.unknowns).to.deep.equal([
        "This run's record (trace, facts, artifacts) was removed 30 days after it finished (GLEANER_RETENTION_DAYS); " +
          "the rows it wrote, their evidence and history are kept.",
      ]);
      expect((await owner.get(`/v1/datasets/${dataset.id}/rows/${row.id}`)).body).to.deep.equal(rowBefore);
      expect((await owner.get(`/v1/datasets/${dataset.id}/changes`)).body).to.deep.equal(changes);
    });
  });
};

export const retentionCapability: Capability = {
  name: "retention",
  requires: [
    {
      flag: "virtualTime",
      byDefault: true,
      why: "retention cases advance a virtual clock (TestClock) and this set's scheduler fires on real time (supports.virtualTime: false); the store contract covers its prune",
    },
  ],
  register: retentionCases,
};
