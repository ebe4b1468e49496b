import { expect } from "chai";
import { after, before, describe, it } from "../runner.js";
import type { Body } from "../bodies.js";
import { booksDataset, runToEnd } from "../books.js";
import type { Capability, SuiteContext } from "../context.js";
import { type BooksSite, startBooksSite } from "../sites/index.js";
import { createDataset } from "./rows.js";

/**
 * DELETE /v1/datasets/{datasetId} (extension): the dataset goes with its rows, history, runs and
 * their evidence, and its webhooks; the ledger keeps what was charged; a run in flight writes
 * nothing; afterwards and across owners it is 404.
 */
export const deleteDatasetCases = (ctx: SuiteContext): void => {
  describe("DELETE /v1/datasets/{datasetId}", () => {
    let site: BooksSite;
    before(async () => {
      site = await startBooksSite();
    });
    after(() => site.close());

    it("removes the dataset, its rows, changes, runs and scoped webhooks; the ledger keeps its charge", async () => {
      site.reset();
      const owner = await ctx.owner(200);
      const dataset = await createDataset(owner, booksDataset(site));
      const other = await createDataset(owner, booksDataset(site));
      const run = await runToEnd(owner, dataset.id);
      expect(run.status).to.equal("succeeded");
      const events = ["run.finished"];
      const scoped = await owner.post("/v1/webhooks", {
        url: "https://hooks.example/scoped",
        events,
        datasetId: dataset.id,
      });
      const ownerWide = await owner.post("/v1/webhooks", { url: "https://hooks.example/all", events });
      expect([scoped.status, ownerWide.status]).to.deep.equal([201, 201]);
      const row = (await owner.get(`/v1/datasets/${dataset.id}/rows`, { limit: 1 })).body.data[0];

      const deleted = await owner.request("DELETE", `/v1/datasets/${dataset.id}`);
      expect(deleted.status).to.equal(204);
      expect(deleted.credits).to.equal(150);

      for (const path of [
        `/v1/datasets/${dataset.id}`,
        `/v1/datasets/${dataset.id}/rows`,
        `/v1/datasets/${dataset.id}/rows/${row.id}`,
        `/v1/datasets/${dataset.id}/changes`,
        `/v1/datasets/${dataset.id}/runs`,
        `/v1/runs/${run.id}`,
        `/v1/runs/${run.id}/trace`,
        `/v1/runs/${run.id}/artifacts`,
      ]) {
        const answer = await owner.get(path);
        expect(answer.status, path).to.equal(404);
      }
      const listed = (await owner.get("/v1/datasets")).body.data.map((d: Body) => d.id);
      expect(listed).to.deep.equal([other.id]);
      const webhooks = (await owner.get("/v1/webhooks")).body.webhooks.map((w: Body) => w.id);
      expect(webhooks).to.deep.equal([ownerWide.body.webhook.id]);
      const usage = (await owner.get("/v1/usage")).body;
      expect(usage.balance).to.equal(150);
      expect(usage.entries.find((e: Body) => e.kind === "charge")).to.include({ runId: run.id, datasetId: dataset.id });
      // The name is free again.
      const again = await owner.post("/v1/datasets", { ...booksDataset(site), name: dataset.name });
      expect(again.status).to.equal(201);
    });

    it("is 404 when repeated, for another owner's dataset (left whole) and for an id that is no dataset", async () => {
      const owner = await ctx.owner();
      const stranger = await ctx.owner();
      const dataset = await createDataset(owner, booksDataset(site));
      expect((await stranger.request("DELETE", `/v1/datasets/${dataset.id}`)).status).to.equal(404);
      expect((await owner.get(`/v1/datasets/${dataset.id}`)).status).to.equal(200);
      expect((await owner.request("DELETE", `/v1/datasets/${dataset.id}`)).status).to.equal(204);
      const repeated = await owner.request("DELETE", `/v1/datasets/${dataset.id}`);
      expect(repeated.status).to.equal(404);
      expect(repeated.body.error.code).to.equal("not_found");
      expect((await owner.request("DELETE", "/v1/datasets/not-a-dataset")).status).to.equal(404);
    });

    it("a run in flight when its dataset is deleted writes nothing and charges nothing", async () => {
      site.reset();
      site.setDelay(100);
      try {
        const owner = await ctx.owner(100);
        const dataset = await createDataset(owner, booksDataset(site));
        const started = await owner.post(`/v1/datasets/${dataset.id}/runs`);
        expect(started.status).to.equal(202);
        const deadline = Date.now() + 10_000;
        while ((await owner.get(`/v1/runs/${started.body.runId}`)).body.run.status === "queued") {
          if (Date.now() > deadline) throw new Error("the run was never started");
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        const before = site.requestCount;
        expect((await owner.request("DELETE", `/v1/datasets/${dataset.id}`)).status).to.equal(204);
        // The run reads on to its last page, then finds its run gone when it accepts.
        const lastPage = site.pageUrl(50).replace(site.url, "");
        while (!site.requests.slice(before).some((r) => r.path === lastPage)) {
          if (Date.now() > deadline + 20_000) throw new Error("the run never read its last page");
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        await new Promise((resolve) => setTimeout(resolve, 500));
        expect((await owner.get(`/v1/runs/${started.body.runId}`)).status).to.equal(404);
        expect((await owner.get(`/v1/datasets/${dataset.id}`)).status).to.equal(404);
        const usage = (await owner.get("/v1/usage")).body;
        expect(usage.balance).to.equal(100);
        expect(usage.entries.filter((e: Body) => e.kind === "charge")).to.deep.equal([]);
      } finally {
        site.setDelay(0);
      }
    });
  });
};

export const deleteDatasetCapability: Capability = {
  name: "delete dataset",
  register: deleteDatasetCases,
};
