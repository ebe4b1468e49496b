import { expect } from "chai";
import { after, before, describe, it } from "../runner.js";
import type { Body } from "../bodies.js";
import { booksDataset, runToEnd } from "../books.js";
import type { Capability, Owner, SuiteContext } from "../context.js";
import { type BooksSite, startBooksSite } from "../sites/index.js";
import { allRows, createDataset, runSucceeds } from "./rows.js";

// Decision 0042: a page whose bytes and recipe are those of the dataset's last accepted read takes
// that read's records instead of being parsed (its trace has a read step and no extract step); a
// 304 to the validators of that read stands for the same bytes. Still checked and charged.

/** The URLs of a run's read and extract steps (the extract steps are the pages parsed). */
const stepsOf = async (owner: Owner, runId: string) => {
  const { trace } = (await owner.get(`/v1/runs/${runId}/trace`)).body;
  const urls = (phase: string) => trace.steps.filter((s: Body) => s.phase === phase).map((s: Body) => s.sourceUrl);
  return { read: urls("read") as string[], extracted: urls("extract") as string[] };
};

/** Credits the owner's ledger charged for a run. */
const chargedFor = async (owner: Owner, runId: string): Promise<number> => {
  const { entries } = (await owner.get("/v1/usage")).body;
  return -entries
    .filter((e: Body) => e.kind === "charge" && e.runId === runId)
    .reduce((sum: number, e: Body) => sum + e.amount, 0);
};

/** Every row as `rowKey -> {status, presence, values by column name}`, comparable across datasets. */
const rowsByKey = async (owner: Owner, dataset: Body) => {
  const names = new Map<string, string>(dataset.columns.map((c: Body) => [c.id, c.name]));
  return Object.fromEntries(
    (await allRows(owner, dataset.id)).map((row) => [
      row.rowKey,
      {
        status: row.status,
        presence: row.presence,
        values: Object.fromEntries(Object.entries(row.data).map(([id, v]) => [names.get(id), v])),
      },
    ]),
  );
};

export const reuseCases = (ctx: SuiteContext): void => {
  describe("an unchanged page is not parsed again (reuse of the last accepted read)", () => {
    let site: BooksSite;
    let owner: Owner;
    let reused: Body;
    let control: Body;
    let lastAccepted: string;
    before(async () => {
      site = await startBooksSite();
      owner = await ctx.owner(1000);
      reused = await createDataset(owner, booksDataset(site));
      control = await createDataset(owner, booksDataset(site));
      for (const dataset of [reused, control]) {
        const first = await runSucceeds(owner, dataset.id);
        expect((await stepsOf(owner, first.id)).extracted).to.have.length(50);
      }
    });
    after(() => site.close());

    it("a changed page is extracted again, a recipe change extracts every page, and both give the same rows, deltas and credits", async () => {
      site.setPrice(site.books[45]!.book_id, "£3.21"); // page 3
      // Adding a column changes the recipe a kept extraction was made under.
      const columns = [
        ...control.columns.map(({ id, label, name, type, ownership, key }: Body) => ({
          id,
          label,
          name,
          type,
          ownership,
          key,
        })),
        { name: "shelf", type: "string", ownership: "user" },
      ];
      const updated = await owner.patch(`/v1/datasets/${control.id}`, { expectedSchemaVersion: 1, columns });
      expect(updated.status, JSON.stringify(updated.body)).to.equal(200);
      control = updated.body.dataset;

      const partly = await runSucceeds(owner, reused.id);
      lastAccepted = partly.id;
      const full = await runSucceeds(owner, control.id);
      const partlySteps = await stepsOf(owner, partly.id);
      expect(partlySteps.read).to.have.length(50);
      expect(partlySteps.extracted).to.deep.equal([site.pageUrl(3)]);
      expect((await stepsOf(owner, full.id)).extracted).to.have.length(50);

      expect(partly.rowDeltas).to.deep.equal({ new: 0, changed: 1, gone: 0 });
      expect(full.rowDeltas).to.deep.equal(partly.rowDeltas);
      // The same checks with the same outcome (present:<field id> names each dataset's own field).
      const outcomes = (run: Body) =>
        run.checks.map((c: Body) => [c.checkId.startsWith("present:") ? "present" : c.checkId, c.passed]);
      expect(outcomes(partly)).to.deep.equal(outcomes(full));
      expect(await chargedFor(owner, partly.id)).to.equal(50);
      expect(await chargedFor(owner, full.id)).to.equal(50);
      const partlyRows = await rowsByKey(owner, reused);
      expect(Object.keys(partlyRows)).to.have.length(1000);
      const fullRows = await rowsByKey(owner, control);
      for (const row of Object.values(fullRows) as Body[]) delete row.values.shelf;
      expect(partlyRows).to.deep.equal(fullRows);
    });

    it("an unchanged re-run parses no page, passes every check, writes nothing and is charged for every page", async () => {
      const before = await rowsByKey(owner, reused);
      const run = await runSucceeds(owner, reused.id);
      const steps = await stepsOf(owner, run.id);
      expect(steps.read).to.have.length(50);
      expect(steps.extracted).to.deep.equal([]);
      expect(run.checks.every((c: Body) => c.passed)).to.equal(true);
      expect(run.checks.map((c: Body) => c.checkId)).to.include.members(["coverage", "identity", "extraction"]);
      expect(run.rowDeltas).to.deep.equal({ new: 0, changed: 0, gone: 0 });
      expect(await chargedFor(owner, run.id)).to.equal(50);
      // Diagnostics name, per page read, the accepted run whose records it reused.
      const { sources } = (await owner.get(`/v1/runs/${run.id}/diagnostics`)).body.diagnostics;
      expect(sources).to.have.length(50);
      for (const source of sources) {
        expect(source).to.deep.include({ outcome: "read", records: 20 });
        expect(source.reused).to.deep.equal({ fromRunId: lastAccepted, basis: "same_digest" });
      }
      lastAccepted = run.id;
      const after = await rowsByKey(owner, reused);
      for (const row of Object.values(before) as Body[]) row.status = "unchanged";
      expect(after).to.deep.equal(before);
    });

    it("a run that fails keeps nothing: the next run still reuses the last accepted run's reads", async () => {
      site.blockPage(50, "forbidden");
      const failed = await runToEnd(owner, reused.id);
      site.unblockPage(50);
      expect(failed.status).to.equal("failed");
      expect((await stepsOf(owner, failed.id)).extracted).to.deep.equal([]);
      expect(await chargedFor(owner, failed.id)).to.equal(0);
      const again = await runSucceeds(owner, reused.id);
      expect((await stepsOf(owner, again.id)).extracted).to.deep.equal([]);
      expect(again.rowDeltas).to.deep.equal({ new: 0, changed: 0, gone: 0 });
      const { sources } = (await owner.get(`/v1/runs/${again.id}/diagnostics`)).body.diagnostics;
      expect(new Set(sources.map((s: Body) => s.reused?.fromRunId))).to.deep.equal(new Set([lastAccepted]));
    });
  });

  describe("conditional requests: the validators of the last accepted read", () => {
    for (const mode of ["honoured", "ignored"] as const) {
      describe(`a site that ${mode === "honoured" ? "answers 304" : "ignores the validators"}`, () => {
        let site: BooksSite;
        let owner: Owner;
        let dataset: Body;
        const listingRequests = () => site.requests.filter((r) => r.kind === "listing");
        before(async () => {
          site = await startBooksSite({ validators: mode });
          owner = await ctx.owner(1000);
          dataset = await createDataset(owner, booksDataset(site));
          await runSucceeds(owner, dataset.id);
          expect(listingRequests().every((r) => r.conditional === undefined && r.status === 200)).to.equal(true);
        });
        after(() => site.close());

        it("sends each page's ETag and Last-Modified back, reuses its records, and charges every page", async () => {
          const rowsBefore = await rowsByKey(owner, dataset);
          site.clearRequests();
          const run = await runSucceeds(owner, dataset.id);
          const requests = listingRequests();
          expect(requests).to.have.length(50);
          for (const request of requests) {
            expect(request.conditional?.ifNoneMatch).to.match(/^"[0-9a-f]{32}"$/);
            expect(request.conditional?.ifModifiedSince).to.be.a("string");
          }
          expect(new Set(requests.map((r) => r.status))).to.deep.equal(new Set([mode === "honoured" ? 304 : 200]));
          expect((await stepsOf(owner, run.id)).extracted).to.deep.equal([]);
          expect(run.rowDeltas).to.deep.equal({ new: 0, changed: 0, gone: 0 });
          expect(await chargedFor(owner, run.id)).to.equal(50);
          const { sources } = (await owner.get(`/v1/runs/${run.id}/diagnostics`)).body.diagnostics;
          const basis = mode === "honoured" ? "not_modified" : "same_digest";
          expect(sources.map((s: Body) => s.reused?.basis)).to.deep.equal(Array(50).fill(basis));
          const rowsAfter = await rowsByKey(owner, dataset);
          for (const row of Object.values(rowsBefore) as Body[]) row.status = "unchanged";
          expect(rowsAfter).to.deep.equal(rowsBefore);
          // A page answered 304 keeps its artifact: the stored body, as read before.
          const { artifacts } = (await owner.get(`/v1/runs/${run.id}/artifacts`)).body;
          expect(artifacts).to.have.length(50);
          const one = (await owner.get(`/v1/runs/${run.id}/artifacts/${artifacts[2].id}`)).body.artifact;
          expect(one.body).to.include("article").and.include("product_pod");
        });

        it("a page that changed answers 200 with its new version and is extracted again", async () => {
          site.setPrice(site.books[25]!.book_id, "£7.77"); // page 2
          site.clearRequests();
          const run = await runSucceeds(owner, dataset.id);
          const page2 = listingRequests().find((r) => r.path === "/catalogue/page-2.html");
          expect(page2?.status).to.equal(200);
          expect((await stepsOf(owner, run.id)).extracted).to.deep.equal([site.pageUrl(2)]);
          expect(run.rowDeltas).to.deep.equal({ new: 0, changed: 1, gone: 0 });
          const priceId = dataset.columns.find((c: Body) => c.name === "price").id;
          const rows = (await owner.get(`/v1/datasets/${dataset.id}/rows?status=changed`)).body.data;
          expect(rows.map((r: Body) => r.data[priceId])).to.deep.equal([7.77]);
        });
      });
    }
  });
};

export const reuseCapability: Capability = {
  name: "reuse",
  register: (ctx) => reuseCases(ctx),
};
