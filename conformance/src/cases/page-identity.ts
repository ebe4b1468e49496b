import { expect } from "chai";
import { after, before, describe, it } from "../runner.js";
import type { Body } from "../bodies.js";
import { runToEnd } from "../books.js";
import type { Capability, SuiteContext } from "../context.js";
import { type LoopSite, loopKinds, startLoopSite } from "../sites/index.js";
import { createDataset } from "./rows.js";

/**
 * A page is one page (issue 33, decision 0041): pagination that comes back to a page already read, by
 * a fragment, a redirect, another spelling of its address or the same page under a query, ends there
 * with a trace note; the run is accepted and charged once per distinct page.
 */
export const pageIdentityCases = (ctx: SuiteContext): void => {
  describe("a page is one page: pagination loops", () => {
    let site: LoopSite;
    before(async () => {
      site = await startLoopSite();
    });
    after(() => site.close());

    for (const kind of loopKinds) {
      it(`ends pagination when page 2 links back by ${kind}: accepted, 6 rows, 2 credits, a trace note`, async () => {
        const owner = await ctx.owner(10);
        const dataset = await createDataset(owner, {
          name: `Loop ${kind} ${globalThis.crypto.randomUUID().slice(0, 8)}`,
          columns: [{ name: "label", type: "string", key: true }],
          source: {
            version: 1,
            url: `${site.url}/${kind}/p/1`,
            itemSelector: "li.item",
            fields: [{ name: "label", read: { selector: "b" } }],
            identity: { kind: "source-key", field: "label" },
            pagination: { kind: "next-link", selector: "a.next" },
          },
        });
        const run = await runToEnd(owner, dataset.id);
        expect(run.status, JSON.stringify(run)).to.equal("succeeded");
        expect(run.rowDeltas).to.deep.equal({ new: 6, changed: 0, gone: 0 });
        expect((await owner.get("/v1/usage")).body.balance).to.equal(8);
        const trace = (await owner.get(`/v1/runs/${run.id}/trace`)).body.trace;
        const reads = trace.steps.filter((s: Body) => s.phase === "read");
        expect(reads.map((s: Body) => s.status)).to.deep.equal(["succeeded", "succeeded", "cancelled"]);
        // Page 2 was asked for once: a fragment never reaches the server, so it is never asked again.
        expect(site.requests.get(`/${kind}/p/2`)).to.be.at.most(kind === "fragment" ? 1 : 2);
      });
    }
  });
};

export const pageIdentityCapability: Capability = { name: "pageIdentity", register: pageIdentityCases };
