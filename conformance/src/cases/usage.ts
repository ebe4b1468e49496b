import { expect } from "chai";
import { describe, it } from "../runner.js";
import type { Capability, SuiteContext } from "../context.js";

export const usageCases = (ctx: SuiteContext): void => {
  describe("GET /v1/usage", () => {
    it("shows the balance and the ledger of the last 30 days, newest first", async () => {
      const owner = await ctx.owner(25);
      const answer = await owner.get("/v1/usage");
      expect(answer.status).to.equal(200);
      expect(answer.credits).to.equal(25);
      expect(answer.body.balance).to.equal(25);
      expect(answer.body.entries).to.have.length(1);
      const [entry] = answer.body.entries;
      expect(entry).to.have.all.keys("id", "kind", "amount", "runId", "datasetId", "pages", "createdAt");
      expect(entry).to.include({ kind: "grant", amount: 25, runId: null, datasetId: null, pages: null });
    });

    it("shows an owner with no credits as balance 0 and no entries", async () => {
      const owner = await ctx.owner(0);
      const answer = await owner.get("/v1/usage");
      expect(answer.body).to.deep.equal({ balance: 0, entries: [] });
      expect(answer.credits).to.equal(0);
    });

    it("sums several grants, newest first", async () => {
      const owner = await ctx.owner(10);
      await ctx.host().createKey(owner.name, 5);
      const answer = await owner.get("/v1/usage");
      expect(answer.body.balance).to.equal(15);
      expect(answer.body.entries.map((e: { amount: number }) => e.amount)).to.deep.equal([5, 10]);
      expect(answer.credits).to.equal(15);
    });
  });
};

export const usageCapability: Capability = {
  name: "usage",
  register: usageCases,
};
