import { RunDiagnostics } from "@gleaner/core";
import { expect } from "chai";
import * as Schema from "effect/Schema";
import { after, before, describe, it } from "../runner.js";
import type { Body } from "../bodies.js";
import { booksDataset, columnId, runToEnd } from "../books.js";
import type { Capability, Owner, SuiteContext } from "../context.js";
import { type BooksSite, startBooksSite } from "../sites/index.js";

/** The books dataset plus an `isbn` column the listing pages never show: a field missing everywhere. */
const withMissingField = (site: BooksSite) =>
  booksDataset(site, "next-link", (b) => {
    b.columns.push({ name: "isbn", type: "string" });
    b.source.fields.push({ name: "isbn", read: { selector: "p.isbn" } });
  });

const diagnose = async (owner: Owner, runId: string, query: Record<string, string> = {}) => {
  const answer = await owner.get(`/v1/runs/${runId}/diagnostics`, query);
  expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
  // The whole payload holds to its schema: no extra field, every limit (codes, unknowns).
  Schema.decodeUnknownSync(RunDiagnostics, { onExcessProperty: "error" })(answer.body.diagnostics);
  return answer.body.diagnostics;
};

/** Totals are the entity list counted; each failure group counts the entities that carry its code. */
const expectConsistent = (summary: Body) => {
  const byOutcome: Record<string, number> = { present: 0, absent: 0, unknown: 0, ambiguous: 0 };
  for (const e of summary.entities) byOutcome[e.outcome]++;
  expect(summary.totals).to.deep.include({ ...byOutcome, entities: summary.entities.length });
  for (const group of summary.failureGroups) {
    const carrying = summary.entities.filter((e: Body) => e.failureCodes.includes(group.code)).length;
    const { present, absent, unknown, ambiguous } = group.counts;
    expect(present + absent + unknown + ambiguous, `${group.stage}/${group.code}`).to.equal(carrying);
    for (const example of group.examples) expect(example.evidenceId, group.code).to.be.a("string").and.not.equal("");
  }
};

export const diagnosticsCases = (ctx: SuiteContext): void => {
  describe("diagnostics explain every loss from what was recorded", () => {
    let site: BooksSite;
    let owner: Owner;
    let dataset: Body;
    let accepted: Body;
    let failed: Body;
    before(async () => {
      site = await startBooksSite();
      owner = await ctx.owner(1000);
      const created = await owner.post("/v1/datasets", withMissingField(site));
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      dataset = created.body.dataset;
      accepted = await runToEnd(owner, dataset.id);
      expect(accepted.status).to.equal("succeeded");
      site.blockPage(3, "rate_limited", { retryAfter: 0 });
      failed = await runToEnd(owner, dataset.id);
      site.unblockPage(3);
      expect(failed.status).to.equal("failed");
    });
    after(() => site.close());

    it("a succeeded run has every area, says it was accepted whole, and cites evidence one can fetch", async () => {
      const d = await diagnose(owner, accepted.id);
      expect(d.findings[0].code).to.equal("run_accepted");
      expect(d.request.source.url).to.equal(`${site.url}/index.html`);
      expect(d.request.limits.maxPages).to.equal(50);
      expect(d.request).to.include({ render: "static", robots: "obeyed" });
      expect(d.sources).to.have.length(50);
      expect(d.sources.every((s: Body) => s.outcome === "read" && s.records === 20)).to.equal(true);
      const artifact = await owner.get(`/v1/runs/${accepted.id}/artifacts/${d.sources[0].evidenceIds[0]}`);
      expect(artifact.status).to.equal(200);
      const isbn = d.cells.find((c: Body) => c.fieldId === columnId(dataset, "isbn"));
      expect(isbn).to.deep.include({ observedRows: 1000, missing: 1000, reasons: { not_found: 1000 } });
      const row = await owner.get(`/v1/datasets/${dataset.id}/rows/${isbn.examples[0].rowId}`);
      expect(row.status).to.equal(200);
      expect((row.body.row ?? row.body).rowKey).to.equal(isbn.examples[0].entity);
      expect(d.reconciliation).to.include({ applied: true, new: 1000, changed: 0, gone: 0 });
      expect(d.completion.outputComplete).to.equal(true);
      expect(d.cost).to.include({ pagesCharged: 50 });
      expect(d.timing.queueMs).to.be.a("number");
    });

    it("summary=true fills entities and failure groups, with totals equal to the arrays", async () => {
      const { summary } = await diagnose(owner, accepted.id, { summary: "true" });
      expect(summary.outputComplete).to.equal(true);
      expect(summary.totals).to.include({ entities: 1000, present: 1000 });
      expect(summary.entities[0]).to.include({ outcome: "present", recovered: false });
      expect(summary.entities[0].failureCodes).to.deep.equal(["cell_not_found"]);
      const group = summary.failureGroups.find((g: Body) => g.code === "cell_not_found");
      expect(group.stage).to.equal("extraction");
      expect(group.counts.present).to.equal(1000);
      expect(group.examples[0].url).to.equal(`${site.url}/index.html`);
      expectConsistent(summary);
    });

    it("a page that answered 429 is unknown, never an absent entity; the run's output is not complete", async () => {
      const d = await diagnose(owner, failed.id, { summary: "true" });
      const { summary } = d;
      expect(summary.outputComplete).to.equal(false);
      expect(d.completion.outputComplete).to.equal(false);
      expect(summary.totals.absent).to.equal(0);
      expect(summary.totals.entities).to.equal(40);
      const retrieval = summary.failureGroups.find((g: Body) => g.stage === "retrieval");
      expect(retrieval.code).to.equal("rate_limited");
      expect(retrieval.counts).to.deep.equal({ present: 0, absent: 0, unknown: 0, ambiguous: 0, recovered: 0 });
      const { trace } = (await owner.get(`/v1/runs/${failed.id}/trace`)).body;
      const failedRead = trace.steps.find((s: Body) => s.phase === "read" && s.status === "failed");
      expect(retrieval.examples[0]).to.deep.equal({
        entity: "",
        evidenceId: failedRead.stepId,
        url: site.pageUrl(3),
      });
      expect(summary.unknowns.join(" ")).to.contain(site.pageUrl(3));
      expect(d.sources.at(-1)).to.deep.include({ url: site.pageUrl(3), outcome: "refused", records: 0 });
      expect(d.sources.at(-1).failure).to.include({ reason: "rate_limited", status: 429 });
      expect(d.findings.map((f: Body) => f.code)).to.include.members(["run_failed_checks", "check_failed:coverage"]);
      expectConsistent(summary);
    });

    it("summary and entity answers agree: the missing cell, its reason, its row and its first failure", async () => {
      const { summary } = await diagnose(owner, failed.id, { summary: "true" });
      const isbnId = columnId(dataset, "isbn");
      const missing = summary.missingCells.find((m: Body) => m.fieldId === isbnId);
      expect(missing).to.include({ label: "isbn", observedRows: 40, missing: 40 });
      const [example] = missing.examples;
      expect(example.rowId).to.be.a("string");
      const { entity } = await diagnose(owner, failed.id, { entity: example.entity, field: isbnId });
      expect(entity.outcome).to.equal("present");
      expect(entity.matchedNames).to.deep.equal([example.entity]);
      expect(entity.cells).to.deep.equal([
        {
          rowId: example.rowId,
          fieldId: isbnId,
          value: null,
          missingReason: "not_found",
          evidenceIds: entity.cells[0].evidenceIds,
        },
      ]);
      expect(entity.paths[0].firstFailure).to.include({ stage: "extraction", code: "cell_not_found", failure: true });
      expect(entity.paths[0].facts.some((f: Body) => f.stage === "output" && f.code === "not_written_failed")).to.equal(
        true,
      );
      const summarised = summary.entities.find((e: Body) => e.entity === example.entity);
      expect(summarised.failureCodes).to.include.members(["cell_not_found", "not_written_failed"]);
    });

    it("an entity on the page not read is unknown, and its path stops at retrieval", async () => {
      const onPage3 = `${site.url}/${site.books[45]!.product_path}`;
      const { entity } = await diagnose(owner, failed.id, { entity: onPage3 });
      expect(entity.outcome).to.equal("unknown");
      expect(entity.matchedNames).to.deep.equal([]);
      expect(entity.cells).to.deep.equal([]);
      expect(entity.paths[0].url).to.equal(site.pageUrl(3));
      expect(entity.paths[0].firstFailure).to.include({ stage: "retrieval", code: "rate_limited" });
      expect(entity.unknowns[0]).to.contain(onPage3);
    });

    it("field must be a Field id or exact label (400 naming field); entity and field are 1-200 chars", async () => {
      const link = `${site.url}/${site.books[0]!.product_path}`;
      const bad = await owner.get(`/v1/runs/${accepted.id}/diagnostics`, { entity: link, field: "nofield" });
      expect(bad.status).to.equal(400);
      expect(bad.body.error.details.map((d: Body) => d.path)).to.deep.equal(["/field"]);
      expect(bad.body.error.message).to.contain("nofield");
      const byLabel = await diagnose(owner, accepted.id, { entity: link, field: "price" });
      expect(byLabel.entity.cells.map((c: Body) => c.fieldId)).to.deep.equal([columnId(dataset, "price")]);
      expect(byLabel.entity.field).to.equal(columnId(dataset, "price"));
      const tooLong: Array<Record<string, string>> = [
        { entity: "x".repeat(201) },
        { entity: link, field: "" },
        { entity: "" },
      ];
      for (const query of tooLong) {
        const answer = await owner.get(`/v1/runs/${accepted.id}/diagnostics`, query);
        expect(answer.status, JSON.stringify(query).slice(0, 80)).to.equal(400);
      }
    });

    it("a held run says every check passed but the owner cannot pay; its trace does not end accepted", async () => {
      const poor = await ctx.owner(10);
      const created = await poor.post("/v1/datasets", withMissingField(site));
      const held = await runToEnd(poor, created.body.dataset.id);
      expect(held.status).to.equal("held");
      const d = await diagnose(poor, held.id);
      expect(d.findings[0]).to.deep.equal({
        code: "run_held_insufficient_credits",
        message: "Every check passed, but the owner cannot pay for 50 pages; nothing was written or charged.",
      });
      expect(d.completion.outputComplete).to.equal(false);
      expect(d.cost).to.include({ pagesToCharge: 50, pagesCharged: 0 });
      const { trace } = (await poor.get(`/v1/runs/${held.id}/trace`)).body;
      const last = trace.steps.at(-1);
      expect(`${last.phase}: ${last.status}`).to.not.equal("accept: succeeded");
    });

    it("a blocked run says the site refused, and names no entity", async () => {
      site.blockPage(1, "forbidden");
      const blocked = await runToEnd(owner, dataset.id);
      site.unblockPage(1);
      expect(blocked.status).to.equal("blocked");
      const d = await diagnose(owner, blocked.id, { summary: "true" });
      expect(d.findings[0].code).to.equal("run_blocked");
      expect(d.findings[0].message).to.contain("forbidden");
      expect(d.summary.entities).to.deep.equal([]);
      expect(d.sources[0]).to.deep.include({ outcome: "refused", records: 0 });
    });
  });
};

export const diagnosticsCapability: Capability = {
  name: "diagnostics",
  register: diagnosticsCases,
};
