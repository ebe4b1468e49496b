import { expect } from "chai";
import { after, before, describe, it } from "../runner.js";
import type { Body } from "../bodies.js";
import { booksDataset, columnId, runToEnd, waitForRun } from "../books.js";
import type { Capability, Owner, SuiteContext } from "../context.js";
import { type BooksSite, startBooksSite } from "../sites/index.js";
import { createDataset } from "./rows.js";

const check = (run: Body, id: string) => run.checks.find((c: Body) => c.checkId === id);

export const runCases = (ctx: SuiteContext): void => {
  describe("runs on the books site", () => {
    let site: BooksSite;
    before(async () => {
      site = await startBooksSite();
    });
    after(() => site.close());

    for (const pagination of ["next-link", "url-pattern"] as const) {
      it(`accepts all 1000 books with ${pagination} pagination, typed, and charges 50 credits`, async () => {
        site.reset();
        const owner = await ctx.owner(120);
        const dataset = await createDataset(owner, booksDataset(site, pagination));
        const run = await runToEnd(owner, dataset.id);
        expect(run.status, JSON.stringify(run)).to.equal("succeeded");
        expect(run.error).to.equal(null);
        expect(run.rowDeltas).to.deep.equal({ new: 1000, changed: 0, gone: 0 });
        expect(run.checks.map((c: Body) => c.checkId)).to.deep.equal([
          "coverage",
          "identity",
          "extraction",
          "minimum-items",
          `present:${columnId(dataset, "title")}`,
          `present:${columnId(dataset, "price")}`,
        ]);
        expect(run.checks.every((c: Body) => c.passed)).to.equal(true);
        const usage = await owner.get("/v1/usage");
        expect(usage.body.balance).to.equal(70);
        expect(usage.credits).to.equal(70);
        expect(usage.body.entries[0]).to.include({
          kind: "charge",
          amount: -50,
          pages: 50,
          runId: run.id,
          datasetId: dataset.id,
        });
        const after = (await owner.get(`/v1/datasets/${dataset.id}`)).body.dataset;
        expect(after.rowCount).to.equal(1000);
        expect(after.lastRun).to.deep.equal({ id: run.id, status: "succeeded", completedAt: run.completedAt });
      });
    }

    describe("a dataset followed through changes of the site", () => {
      let owner: Owner;
      let dataset: Body;
      const balance = async () => (await owner.get("/v1/usage")).body.balance;
      before(async () => {
        site.reset();
        owner = await ctx.owner(1000);
        dataset = await createDataset(owner, booksDataset(site));
        const first = await runToEnd(owner, dataset.id);
        expect(first.status).to.equal("succeeded");
      });

      it("a second run with no change writes nothing new and charges again for the pages checked", async () => {
        const before = await balance();
        const run = await runToEnd(owner, dataset.id);
        expect(run.status).to.equal("succeeded");
        expect(run.rowDeltas).to.deep.equal({ new: 0, changed: 0, gone: 0 });
        expect(await balance()).to.equal(before - 50);
      });

      it("a changed price is one changed row", async () => {
        site.setPrice(site.books[3]!.book_id, "£1.25");
        const run = await runToEnd(owner, dataset.id);
        expect(run.status).to.equal("succeeded");
        expect(run.rowDeltas).to.deep.equal({ new: 0, changed: 1, gone: 0 });
      });

      it("a book that disappears is one gone row; when it returns it is changed again", async () => {
        const book = site.books[10]!.book_id;
        site.removeBook(book);
        const gone = await runToEnd(owner, dataset.id);
        expect(gone.status).to.equal("succeeded");
        expect(gone.rowDeltas).to.deep.equal({ new: 0, changed: 0, gone: 1 });
        expect((await owner.get(`/v1/datasets/${dataset.id}`)).body.dataset.rowCount).to.equal(1000);
        site.restoreBook(book);
        const back = await runToEnd(owner, dataset.id);
        expect(back.rowDeltas).to.deep.equal({ new: 0, changed: 1, gone: 0 });
      });

      it("a blocked page fails coverage: nothing written, nothing charged", async () => {
        const before = await balance();
        site.setPrice(site.books[0]!.book_id, "£2.00");
        site.blockPage(3, "forbidden");
        const run = await runToEnd(owner, dataset.id);
        site.unblockPage(3);
        expect(run.status).to.equal("failed");
        expect(check(run, "coverage").passed).to.equal(false);
        expect(check(run, "coverage").message).to.contain("page-3.html").and.contain("forbidden");
        expect(run.rowDeltas).to.deep.equal({ new: 0, changed: 0, gone: 0 });
        expect(run.error).to.be.a("string").and.contain("coverage");
        expect(await balance()).to.equal(before);
        // The price change was not written: the next good run still finds it.
        const next = await runToEnd(owner, dataset.id);
        expect(next.rowDeltas).to.deep.equal({ new: 0, changed: 1, gone: 0 });
      });

      it("a site that refuses every read makes the run blocked, free of charge", async () => {
        const before = await balance();
        for (const mode of ["challenge", "forbidden", "login_redirect", "empty_body"] as const) {
          site.blockPage(1, mode);
          const run = await runToEnd(owner, dataset.id);
          expect(run.status, mode).to.equal("blocked");
          expect(run.error).to.contain(mode);
        }
        site.unblockPage(1);
        expect(await balance()).to.equal(before);
      });

      it("a drifted selector fails the required price check, naming page and item", async () => {
        const before = await balance();
        site.driftSelectors(true);
        const run = await runToEnd(owner, dataset.id);
        site.driftSelectors(false);
        expect(run.status).to.equal("failed");
        const present = check(run, `present:${columnId(dataset, "price")}`);
        expect(present.passed).to.equal(false);
        expect(present.message).to.contain("index.html item 0");
        expect(await balance()).to.equal(before);
      });
    });

    it("titles used as identity that collide fail the identity check", async () => {
      site.reset();
      const owner = await ctx.owner(200);
      const dataset = await createDataset(
        owner,
        booksDataset(site, "next-link", (b) => {
          b.columns[0].key = false;
          b.columns[1].key = true;
          b.source.identity = { kind: "source-key", field: "title" };
        }),
      );
      const ids = [site.books[0]!.book_id, site.books[25]!.book_id];
      site.collideTitles(ids, "The Same Title");
      const run = await runToEnd(owner, dataset.id);
      site.reset();
      expect(run.status).to.equal("failed");
      expect(check(run, "identity").passed).to.equal(false);
      expect(check(run, "identity").message).to.contain("The Same Title").and.contain("page-2.html item 5");
      expect((await owner.get("/v1/usage")).body.balance).to.equal(200);
      expect((await owner.get(`/v1/datasets/${dataset.id}`)).body.dataset.rowCount).to.equal(0);
    });

    it("an owner who cannot pay for every page at acceptance gets held, nothing written", async () => {
      site.reset();
      const owner = await ctx.owner(10);
      const dataset = await createDataset(owner, booksDataset(site));
      const run = await runToEnd(owner, dataset.id);
      expect(run.status).to.equal("held");
      expect(run.error).to.contain("50 page");
      expect(run.checks.every((c: Body) => c.passed)).to.equal(true);
      expect((await owner.get("/v1/usage")).body.balance).to.equal(10);
      expect((await owner.get(`/v1/datasets/${dataset.id}`)).body.dataset.rowCount).to.equal(0);
    });

    it("maxPages below the site's length leaves coverage incomplete", async () => {
      site.reset();
      const owner = await ctx.owner(100);
      const dataset = await createDataset(
        owner,
        booksDataset(site, "next-link", (b) => void (b.source.maxPages = 3)),
      );
      const run = await runToEnd(owner, dataset.id);
      expect(run.status).to.equal("failed");
      expect(check(run, "coverage").message).to.contain("maxPages (3)");
    });

    it("refuses to start a run without credits (402), a second concurrent run (409), and unknown datasets (404)", async () => {
      site.reset();
      const broke = await ctx.owner(0);
      const dataset = await createDataset(broke, booksDataset(site));
      const refused = await broke.post(`/v1/datasets/${dataset.id}/runs`);
      expect(refused.status).to.equal(402);
      expect(refused.body.error.code).to.equal("insufficient_credits");
      expect((await broke.get(`/v1/datasets/${dataset.id}/runs`)).body.data).to.deep.equal([]);

      const owner = await ctx.owner(100);
      const mine = await createDataset(owner, booksDataset(site));
      site.setDelay(40);
      const first = await owner.post(`/v1/datasets/${mine.id}/runs`);
      const second = await owner.post(`/v1/datasets/${mine.id}/runs`);
      expect(first.status).to.equal(202);
      expect(first.body.creditsRemaining).to.equal(100);
      expect(second.status).to.equal(409);
      expect(second.body.error.code).to.equal("run_in_progress");
      await waitForRun(owner, first.body.runId);
      site.setDelay(0);

      expect((await owner.post(`/v1/datasets/${globalThis.crypto.randomUUID()}/runs`)).status).to.equal(404);
      expect((await broke.post(`/v1/datasets/${mine.id}/runs`)).status).to.equal(404);
      expect((await broke.get(`/v1/runs/${first.body.runId}`)).status).to.equal(404);
    });

    describe("what a run leaves to inspect", () => {
      let owner: Owner;
      let run: Body;
      before(async () => {
        site.reset();
        owner = await ctx.owner(100);
        const dataset = await createDataset(owner, booksDataset(site, "url-pattern"));
        run = await runToEnd(owner, dataset.id);
        expect(run.status).to.equal("succeeded");
      });

      it("lists runs newest first", async () => {
        const answer = await owner.get(`/v1/datasets/${run.datasetId}/runs`);
        expect(answer.status).to.equal(200);
        expect(answer.body.data).to.deep.equal([run]);
        expect((await owner.get(`/v1/datasets/${run.datasetId}/runs`, { limit: 0 })).status).to.equal(400);
        expect((await owner.get(`/v1/datasets/${run.datasetId}/runs`, { limit: 101 })).status).to.equal(400);
      });

      it("has a trace: a step per page read, phases, queue and wall time", async () => {
        const { trace } = (await owner.get(`/v1/runs/${run.id}/trace`)).body;
        expect(trace).to.include({
          runId: run.id,
          datasetId: run.datasetId,
          status: "succeeded",
          truncated: false,
          discovery: null,
        });
        const reads = trace.steps.filter((s: Body) => s.phase === "read");
        expect(reads).to.have.length(50);
        expect(reads[0]).to.include({
          status: "succeeded",
          candidateRows: 20,
          matchedRows: 20,
          sourceUrl: `${site.url}/catalogue/page-1.html`,
        });
        expect(reads[0].durationMs).to.be.a("number");
        expect(trace.phases.map((p: Body) => p.phase)).to.include.members([
          "pin",
          "read",
          "extract",
          "validate",
          "accept",
        ]);
        expect(trace.queueMs).to.be.a("number");
        expect(trace.wallMs).to.be.a("number");
      });

      it("records each page body as an artifact: index without bodies, one artifact with its body", async () => {
        const index = (await owner.get(`/v1/runs/${run.id}/artifacts`)).body;
        expect(index).to.include({ runId: run.id, recipe: null, truncated: false });
        expect(index.artifacts).to.have.length(50);
        const first = index.artifacts[0];
        expect(first).to.not.have.property("body");
        expect(first.sha256).to.match(/^[0-9a-f]{64}$/);
        const one = (await owner.get(`/v1/runs/${run.id}/artifacts/${first.id}`)).body.artifact;
        expect(one.body).to.contain('article class="product_pod"');
        expect(new TextEncoder().encode(one.body).byteLength).to.equal(first.size);
        expect((await owner.get(`/v1/runs/${run.id}/artifacts/${globalThis.crypto.randomUUID()}`)).status).to.equal(
          404,
        );
      });

      it("answers diagnostics from what was recorded, and refuses inconsistent parameters", async () => {
        const plain = (await owner.get(`/v1/runs/${run.id}/diagnostics`)).body.diagnostics;
        expect(plain).to.include({ runId: run.id, basis: "recorded", status: "succeeded" });
        const summary = (await owner.get(`/v1/runs/${run.id}/diagnostics`, { summary: "true" })).body.diagnostics
          .summary;
        expect(summary.totals.entities).to.equal(1000);
        expect(summary.missingCells.map((m: Body) => m.missing)).to.deep.equal([0, 0, 0, 0, 0]);
        const link = `${site.url}/${site.books[0]!.product_path}`;
        const entity = (await owner.get(`/v1/runs/${run.id}/diagnostics`, { entity: link })).body.diagnostics.entity;
        expect(entity.outcome).to.equal("present");
        expect(entity.cells.length).to.equal(5);
        const unknown = (await owner.get(`/v1/runs/${run.id}/diagnostics`, { entity: "no-such-book" })).body
          .diagnostics;
        expect(unknown.entity.outcome).to.equal("unknown");
        expect(unknown.entity.unknowns[0]).to.contain("no-such-book");
        for (const query of [{ summary: "true", entity: link }, { field: "price" }, { summary: "maybe" }] as Array<
          Record<string, string>
        >) {
          const answer = await owner.get(`/v1/runs/${run.id}/diagnostics`, query);
          expect(answer.status, JSON.stringify(query)).to.equal(400);
        }
      });
    });
  });
};

export const runsCapability: Capability = {
  name: "runs",
  register: runCases,
};
