import { expect } from "chai";
import { after, before, describe, it } from "../runner.js";
import { booksDataset, waitForRun } from "../books.js";
import type { Capability, SuiteContext } from "../context.js";
import { type BooksSite, loadBooks, startBooksSite } from "../sites/index.js";

/** Runs you can watch: the trace is written while the run works, not only at the end. */
export const liveTraceCases = (ctx: SuiteContext): void => {
  describe("a run in flight", () => {
    let site: BooksSite;
    before(async () => {
      // Slow pages keep the run in flight long enough to look at it several times.
      // 160 books = 8 listing pages.
      site = await startBooksSite({ delayMs: 150, books: loadBooks().slice(0, 160) });
    });
    after(() => site.close());

    it("shows its steps so far in the trace (the one in progress `running`) and its queue time", async () => {
      const owner = await ctx.owner(100);
      const created = await owner.post("/v1/datasets", booksDataset(site));
      const started = await owner.post(`/v1/datasets/${created.body.dataset.id}/runs`);
      expect(started.status).to.equal(202);
      const runId = started.body.runId;
      const seen: Array<{ status: string; reads: number; running: number; queueMs: number | null }> = [];
      for (let i = 0; i < 400; i++) {
        const run = (await owner.get(`/v1/runs/${runId}`)).body.run;
        const trace = (await owner.get(`/v1/runs/${runId}/trace`)).body.trace;
        if (run.status !== "running") {
          if (run.status !== "queued") break;
          continue;
        }
        const reads = trace.steps.filter((s: { phase: string; status: string }) => s.phase === "read");
        seen.push({
          status: trace.status,
          reads: reads.filter((s: { status: string }) => s.status === "succeeded").length,
          running: trace.steps.filter((s: { status: string }) => s.status === "running").length,
          queueMs: trace.queueMs,
        });
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const finished = await waitForRun(owner, runId);
      expect(finished.status).to.equal("succeeded");
      const midway = seen.filter((s) => s.reads > 0 && s.reads < 8);
      expect(midway.length, JSON.stringify(seen)).to.be.greaterThan(0);
      expect(midway.every((s) => s.status === "running")).to.equal(true);
      expect(
        seen.some((s) => s.running > 0),
        "a step in progress shows as running",
      ).to.equal(true);
      expect(midway[0]!.queueMs).to.be.a("number");
      // Progress only grows while the run works.
      for (let i = 1; i < seen.length; i++) expect(seen[i]!.reads).to.be.at.least(seen[i - 1]!.reads);
      const final = (await owner.get(`/v1/runs/${runId}/trace`)).body.trace;
      expect(final.status).to.equal("succeeded");
      expect(final.steps.filter((s: { status: string }) => s.status === "running")).to.deep.equal([]);
      expect(final.steps.filter((s: { phase: string }) => s.phase === "read")).to.have.length(8);
    });
  });
};

export const liveTraceCapability: Capability = {
  name: "live trace",
  register: liveTraceCases,
};
