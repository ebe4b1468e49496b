import { expect } from "chai";
import { after, before, describe, it } from "../runner.js";
import type { Body } from "../bodies.js";
import { booksDataset, columnId, runToEnd, waitForRun } from "../books.js";
import type { Capability, Owner, SuiteContext } from "../context.js";
import type { BooksSite } from "../sites/index.js";
import { startWebhookReceiver, type WebhookReceiver } from "../webhook-receiver.js";
import { allRows, createDataset, runSucceeds, startSmallBooksSite } from "./rows.js";

/**
 * Drift holds (issue 32, docs/decisions/0040-drift-holds.md): a run that passes its checks but does
 * not look like the dataset is held with its reasons, nothing written or charged, and its owner may
 * accept it later. On the small books site (60 books, 3 pages: 3 credits a run), price optional.
 */
export const driftCases = (ctx: SuiteContext): void => {
  describe("drift: runs that do not look like the dataset", () => {
    let site: BooksSite;
    let receiver: WebhookReceiver;
    before(async () => {
      site = await startSmallBooksSite();
      receiver = await startWebhookReceiver();
    });
    after(async () => {
      await site.close();
      await receiver.close();
    });

    const balance = async (owner: Owner): Promise<number> => (await owner.get("/v1/usage")).body.balance;
    const optionalPrice = (body: Body) => {
      const price = body.source.fields.find((f: Body) => f.name === "price");
      delete price.required;
    };
    /** An owner and a dataset whose first run over the unchanged site was accepted (60 rows). */
    const accepted = async (credits = 100): Promise<{ owner: Owner; dataset: Body }> => {
      const owner = await ctx.owner(credits);
      const dataset = await createDataset(owner, booksDataset(site, "next-link", optionalPrice));
      await runSucceeds(owner, dataset.id);
      return { owner, dataset };
    };
    const prices = async (owner: Owner, dataset: Body) =>
      new Map((await allRows(owner, dataset.id)).map((r) => [r.rowKey, r.data[columnId(dataset, "price")]]));
    const changes = async (owner: Owner, dataset: Body, after: number) => {
      const answer = await owner.get(`/v1/datasets/${dataset.id}/changes`, { after, limit: 100 });
      expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
      return answer.body.data as Body[];
    };
    const accept = (owner: Owner, runId: string) => owner.post(`/v1/runs/${runId}/accept`);

    it("holds a run whose price selector broke (an optional column): nothing written or charged, the reasons in error and diagnostics", async () => {
      site.reset();
      const { owner, dataset } = await accepted();
      const before = await balance(owner);
      site.driftSelectors(true);
      const held = await runToEnd(owner, dataset.id);
      expect(held.status, JSON.stringify(held)).to.equal("held");
      expect(held.error).to.match(
        /^held: price was filled in 0% of 60 records, 100% before; the page's layout may have changed/,
      );
      expect(held.checks.length).to.be.greaterThan(0);
      expect(held.checks.every((c: Body) => c.passed)).to.equal(true);
      expect(held.rowDeltas).to.deep.equal({ new: 0, changed: 0, gone: 0 });
      expect(await balance(owner)).to.equal(before);
      expect([...(await prices(owner, dataset)).values()].every((p) => typeof p === "number")).to.equal(true);
      expect(await changes(owner, dataset, 60)).to.deep.equal([]);

      const diagnostics = (await owner.get(`/v1/runs/${held.id}/diagnostics`)).body.diagnostics;
      expect(diagnostics.findings.map((f: Body) => f.code)).to.include.members(["run_held_drift", "drift_fill_rate"]);
      expect(diagnostics.cost.pagesCharged).to.equal(0);
      const [rule] = diagnostics.drift.rules;
      expect(rule).to.deep.include({
        code: "drift_fill_rate",
        column: "price",
        before: 1,
        after: 0,
        rowsBefore: 60,
        recordsAfter: 60,
      });
      expect(diagnostics.drift.accepted).to.equal(false);
      const [example] = rule.examples;
      expect(example.previous).to.be.a("number");
      expect(example.read).to.equal(null);
      expect(example.url).to.match(/^http:\/\/127\.0\.0\.1/);
      expect(example.evidenceId).to.match(/#\d+$/);
      const trace = (await owner.get(`/v1/runs/${held.id}/trace`)).body.trace;
      expect(trace.status).to.equal("held");
      expect(trace.steps.at(-1)).to.include({ phase: "accept", status: "failed" });
      const shown = (await owner.get(`/v1/datasets/${dataset.id}`)).body.dataset;
      expect(shown.lastRun).to.include({ id: held.id, status: "held" });
    });

    it("accepts a drifted run asked with acceptDrift; a held one accepted later writes the same rows and feed, charged once", async () => {
      site.reset();
      const asked = await accepted();
      const later = await accepted();
      site.driftSelectors(true);
      const started = await asked.owner.post(`/v1/datasets/${asked.dataset.id}/runs`, { acceptDrift: true });
      expect(started.status, JSON.stringify(started.body)).to.equal(202);
      const despite = await waitForRun(asked.owner, started.body.runId);
      expect(despite.status, JSON.stringify(despite)).to.equal("succeeded");
      expect(despite.rowDeltas).to.deep.equal({ new: 0, changed: 60, gone: 0 });
      const noted = (await asked.owner.get(`/v1/runs/${despite.id}/diagnostics`)).body.diagnostics;
      expect(noted.drift.accepted).to.equal(true);

      const held = await runToEnd(later.owner, later.dataset.id);
      expect(held.status).to.equal("held");
      const before = await balance(later.owner);
      const answer = await accept(later.owner, held.id);
      expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
      expect(answer.body.run).to.include({ id: held.id, status: "succeeded", error: null });
      expect(answer.body.run.rowDeltas).to.deep.equal(despite.rowDeltas);
      expect(Date.parse(answer.body.run.completedAt)).to.be.at.least(Date.parse(held.completedAt));
      expect(await balance(later.owner)).to.equal(before - 3);
      const again = await accept(later.owner, held.id);
      expect(again.status).to.equal(409);
      expect(again.body.error.code).to.equal("run_not_held");
      expect(await balance(later.owner)).to.equal(before - 3);
      const usage = (await later.owner.get("/v1/usage")).body.entries[0];
      expect(usage).to.include({ kind: "charge", amount: -3, pages: 3, runId: held.id });

      // The rows and the change feed are those the run would have written had it been accepted then.
      const expected = await prices(asked.owner, asked.dataset);
      expect([...expected.values()].every((p) => p === null)).to.equal(true);
      expect(await prices(later.owner, later.dataset)).to.deep.equal(expected);
      const feed = (revisions: Body[]) => revisions.map((r) => r.kind).sort();
      const laterFeed = await changes(later.owner, later.dataset, 60);
      expect(laterFeed).to.have.length(60);
      expect(feed(laterFeed)).to.deep.equal(feed(await changes(asked.owner, asked.dataset, 60)));
      expect(laterFeed.every((r) => r.runId === held.id)).to.equal(true);
      expect((await later.owner.get(`/v1/runs/${held.id}`)).body.run.status).to.equal("succeeded");
    });

    it("refuses a run body it does not understand with 422 naming the field", async () => {
      const owner = await ctx.owner(10);
      const dataset = await createDataset(owner, booksDataset(site, "next-link", optionalPrice));
      for (const [body, path] of [
        [{ acceptDrift: "yes" }, "/acceptDrift"],
        [{ acceptDrift: true, acceptEverything: true }, "/acceptEverything"],
      ] as const) {
        const answer = await owner.post(`/v1/datasets/${dataset.id}/runs`, body);
        expect(answer.status, JSON.stringify(answer.body)).to.equal(422);
        expect(answer.body.error.details.map((d: Body) => d.path)).to.include(path);
      }
    });

    it("holds a run that lost half the books, and accepts one where 5% of the prices changed", async () => {
      site.reset();
      const { owner, dataset } = await accepted();
      for (const book of site.books.slice(0, 30)) site.removeBook(book.book_id);
      const held = await runToEnd(owner, dataset.id);
      expect(held.status, JSON.stringify(held)).to.equal("held");
      expect(held.error).to.contain("30 of 60 rows (50%) would go missing");
      const codes = (await owner.get(`/v1/runs/${held.id}/diagnostics`)).body.diagnostics.findings.map(
        (f: Body) => f.code,
      );
      expect(codes).to.include("drift_gone_rows");
      expect((await allRows(owner, dataset.id)).filter((r) => r.status === "gone")).to.deep.equal([]);

      site.reset();
      for (const book of site.books.slice(0, 3)) site.setPrice(book.book_id, "£1.00");
      const repriced = await runToEnd(owner, dataset.id);
      expect(repriced.status, JSON.stringify(repriced)).to.equal("succeeded");
      expect(repriced.rowDeltas).to.deep.equal({ new: 0, changed: 3, gone: 0 });
    });

    it("refuses to accept a held run after an edit or a later run (409 run_stale), another owner's (404), or one not held (409)", async () => {
      site.reset();
      const { owner, dataset } = await accepted();
      const first = (await owner.get(`/v1/datasets/${dataset.id}/runs`)).body.data[0];
      site.driftSelectors(true);
      const held = await runToEnd(owner, dataset.id);
      expect(held.status).to.equal("held");
      const [row] = (await owner.get(`/v1/datasets/${dataset.id}/rows`, { limit: 1 })).body.data;
      const edited = await owner.patch(`/v1/datasets/${dataset.id}/rows/${row.id}`, {
        expectedRevisionId: row.revisionId,
        requestId: `edit-${globalThis.crypto.randomUUID()}`,
        values: { [columnId(dataset, "title")]: "Renamed by hand" },
      });
      expect(edited.status, JSON.stringify(edited.body)).to.equal(200);
      const stale = await accept(owner, held.id);
      expect(stale.status, JSON.stringify(stale.body)).to.equal(409);
      expect(stale.body.error.code).to.equal("run_stale");
      expect((await owner.get(`/v1/runs/${held.id}`)).body.run.status).to.equal("held");

      // Held again after the edit: that run's outcome is current, the earlier one's is not.
      const again = await runToEnd(owner, dataset.id);
      expect(again.status).to.equal("held");
      expect((await accept(owner, held.id)).body.error.code).to.equal("run_stale");
      const other = await ctx.owner(100);
      expect((await accept(other, again.id)).status).to.equal(404);
      const notHeld = await accept(owner, first.id);
      expect(notHeld.status).to.equal(409);
      expect(notHeld.body.error.code).to.equal("run_not_held");
      const ok = await accept(owner, again.id);
      expect(ok.status, JSON.stringify(ok.body)).to.equal(200);
      // The edited title is kept (the run read the same title, so only the price changed).
      const kept = (await allRows(owner, dataset.id)).find((r) => r.id === row.id);
      expect(kept!.data[columnId(dataset, "title")]).to.equal("Renamed by hand");
    });

    it("accepts a run held for credits once the owner tops up, charged once (402 before)", async () => {
      site.reset();
      const { owner, dataset } = await accepted(4);
      site.setPrice(site.books[5]!.book_id, "£2.50");
      const held = await runToEnd(owner, dataset.id);
      expect(held.status, JSON.stringify(held)).to.equal("held");
      expect(held.error).to.contain("cannot pay for 3 page(s)");
      const short = await accept(owner, held.id);
      expect(short.status, JSON.stringify(short.body)).to.equal(402);
      expect(short.body.error.code).to.equal("insufficient_credits");
      expect((await owner.get(`/v1/runs/${held.id}`)).body.run.status).to.equal("held");
      await ctx.host().createKey(owner.name, 5);
      expect(await balance(owner)).to.equal(6);
      const paid = await accept(owner, held.id);
      expect(paid.status, JSON.stringify(paid.body)).to.equal(200);
      expect(paid.body.run.rowDeltas).to.deep.equal({ new: 0, changed: 1, gone: 0 });
      expect(await balance(owner)).to.equal(3);
      const book = (await allRows(owner, dataset.id)).find((r) => r.rowKey.endsWith(site.books[5]!.product_path));
      expect(book!.data[columnId(dataset, "price")]).to.equal(2.5);
    });

    it("delivers run.held, signed, with the reason and the run's message", async () => {
      site.reset();
      const { owner, dataset } = await accepted();
      const path = `/${globalThis.crypto.randomUUID()}`;
      const created = await owner.post("/v1/webhooks", {
        url: `${receiver.url}${path}`,
        events: ["run.held"],
        datasetId: dataset.id,
      });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      receiver.expect(path, created.body.secret);
      site.driftSelectors(true);
      const held = await runToEnd(owner, dataset.id);
      expect(held.status).to.equal("held");
      const [delivery] = await receiver.waitFor(path, 1);
      expect(delivery!.verified, "the delivery verifies with standardwebhooks").not.to.equal(null);
      expect(delivery!.verified!.type).to.equal("run.held");
      expect(delivery!.verified!.data).to.deep.equal({
        runId: held.id,
        datasetId: dataset.id,
        reason: "drift",
        message: held.error,
      });
    });
  });
};

export const driftCapability: Capability = { name: "drift", register: driftCases };
