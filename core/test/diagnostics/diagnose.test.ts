import { expect } from "chai";
import * as Schema from "effect/Schema";
import { diagnoseRun, RunDiagnostics, resolveField } from "../../src/index.js";
import { book, columns, evidence, fact, p1, p2, passed, reconciliation, recording, site } from "./fixtures.js";

type Summary = NonNullable<ReturnType<typeof diagnoseRun>["summary"]>;

const decode = Schema.decodeUnknownSync(RunDiagnostics, { onExcessProperty: "error", errors: "all" });

/** Every answer of these tests is also held to the payload schema: no extra field, every limit. */
const diagnose = (...args: Parameters<typeof diagnoseRun>) => {
  const answer = diagnoseRun(...args);
  decode(answer);
  return answer;
};

/** Totals must be the arrays counted: a reader can add them up. */
const expectConsistent = (summary: Summary) => {
  const byOutcome = { present: 0, absent: 0, unknown: 0, ambiguous: 0 };
  for (const e of summary.entities) byOutcome[e.outcome]++;
  expect(summary.totals).to.deep.include(byOutcome);
  expect(summary.totals.entities).to.equal(summary.entities.length);
  expect(summary.totals.recovered).to.equal(summary.entities.filter((e) => e.recovered).length);
  for (const group of summary.failureGroups) {
    const held = summary.entities.filter((e) => e.failureCodes.includes(group.code)).length;
    const { recovered: _r, ...outcomes } = group.counts;
    expect(
      Object.values(outcomes).reduce((a, b) => a + b, 0),
      group.code,
    ).to.equal(held);
    for (const example of group.examples) expect(example.evidenceId, group.code).to.not.equal("");
  }
};

const allChecks = ["coverage", "identity", "extraction", "minimum-items"].map(passed);

describe("diagnostics from a recorded run (pure)", () => {
  describe("a succeeded run: rows new, changed, back and gone", () => {
    const recorded = evidence({
      pages: [
        ["art-1", p1],
        ["art-2", p2],
      ],
      facts: [book("k1", p1, 0, null), book("k2", p1, 1), book("k3", p2, 0)],
      plan: {
        pagesToCharge: 2,
        reconciliation: reconciliation({
          new: 1,
          changed: 1,
          unchanged: 1,
          gone: 1,
          rowIds: { k1: "row-1", k2: "row-2", k3: "row-3", k9: "row-9" },
          created: ["k3"],
          changedKeys: ["k2"],
          returnedKeys: ["k2"],
          goneKeys: ["k9"],
          overridesKept: [{ rowKey: "k1", fieldId: "f-title" }],
        }),
      },
    });
    const run = recording("succeeded", recorded, {
      checks: allChecks,
      chargedPages: 2,
      rowDeltas: { new: 1, changed: 1, gone: 1 },
    });

    it("has every area: request, sources, cells, reconciliation, completion, cost, timing", () => {
      const d = diagnose(run, { summary: false });
      expect(d.request).to.deep.include({ recipeVersion: 1, robots: "obeyed", render: "static", proxy: "auto" });
      expect(d.request?.limits).to.deep.equal({ maxPages: 10, maxItems: 1000, minimumItems: 1 });
      expect(d.sources).to.deep.equal([
        { url: p1, outcome: "read", failure: null, records: 2, evidenceIds: ["art-1"], reused: null },
        { url: p2, outcome: "read", failure: null, records: 1, evidenceIds: ["art-2"], reused: null },
      ]);
      const isbn = d.cells.find((c) => c.fieldId === "f-isbn");
      expect(isbn).to.deep.include({ label: "ISBN", observedRows: 3, missing: 1, reasons: { not_found: 1 } });
      expect(isbn?.examples).to.deep.equal([
        { entity: "k1", rowId: "row-1", reason: "not_found", evidenceId: "art-1#0" },
      ]);
      expect(d.cells.map((c) => c.fieldId)).to.not.include("f-notes");
      expect(d.reconciliation).to.deep.include({
        applied: true,
        new: 1,
        changed: 1,
        unchanged: 1,
        gone: 1,
        recovered: 1,
      });
      expect(d.reconciliation?.overridesKept).to.deep.equal({
        cells: 1,
        examples: [{ entity: "k1", rowId: "row-1", fieldId: "f-title" }],
      });
      expect(d.completion.outputComplete).to.equal(true);
      expect(d.cost).to.deep.include({ pagesRead: 2, pagesCharged: 2 });
      expect(d.timing).to.deep.include({ queueMs: 5000, wallMs: 1200 });
      expect(d.findings.map((f) => f.code)).to.deep.equal([
        "run_accepted",
        "cells_missing:f-isbn",
        "rows_gone",
        "rows_recovered",
      ]);
      expect(d.findings[0]?.message).to.contain("1 new, 1 changed, 1 gone; 2 pages charged");
      expect(d.unknowns).to.deep.equal([]);
    });

    it("summarises losses with entities, outcomes, recovered and failure codes, consistent with the totals", () => {
      const { summary } = diagnose(run, { summary: true });
      if (!summary) throw new Error("summary missing");
      expect(summary.outputComplete).to.equal(true);
      expect(summary.totals).to.deep.equal({
        present: 3,
        absent: 1,
        unknown: 0,
        ambiguous: 0,
        recovered: 1,
        entities: 4,
      });
      expect(summary.entities.find((e) => e.entity === "k9")).to.deep.equal({
        entity: "k9",
        aliases: [],
        outcome: "absent",
        recovered: false,
        failureCodes: ["not_seen"],
      });
      expect(summary.entities.find((e) => e.entity === "k2")?.recovered).to.equal(true);
      expect(summary.entities.find((e) => e.entity === "k1")?.failureCodes).to.deep.equal(["cell_not_found"]);
      const notFound = summary.failureGroups.find((g) => g.code === "cell_not_found");
      expect(notFound).to.deep.include({
        stage: "extraction",
        counts: { present: 1, absent: 0, unknown: 0, ambiguous: 0, recovered: 0 },
      });
      expect(notFound?.examples).to.deep.equal([{ entity: "k1", evidenceId: "art-1#0", url: p1 }]);
      expect(summary.failureGroups.find((g) => g.code === "not_seen")?.examples[0]).to.deep.equal({
        entity: "k9",
        evidenceId: "row-9",
        url: null,
      });
      expectConsistent(summary);
    });

    it("diagnoses one entity: row ids on every cell, paths per URL with facts by stage", () => {
      const { entity } = diagnose(run, { summary: false, entity: "k3" });
      expect(entity?.outcome).to.equal("present");
      expect(entity?.matchedNames).to.deep.equal(["k3"]);
      expect(entity?.cells.every((c) => c.rowId === "row-3")).to.equal(true);
      expect(entity?.cells.map((c) => c.fieldId)).to.deep.equal(["f-link", "f-title", "f-price", "f-isbn"]);
      expect(entity?.paths).to.have.length(1);
      expect(entity?.paths[0]?.url).to.equal(p2);
      expect(entity?.paths[0]?.facts.map((f) => `${f.stage}:${f.code}`)).to.deep.equal([
        "discovery:page_reached",
        "retrieval:page_read",
        "selection:item_selected",
        "extraction:record_read",
        "validation:record_valid",
        "reconciliation:row_new",
        "output:written",
      ]);
      expect(entity?.paths[0]?.firstFailure).to.equal(null);
      expect(entity?.paths[0]?.unknownStages).to.deep.equal([]);
    });

    it("narrows an entity to one field given by label, with the failing fact first", () => {
      const field = resolveField(columns, "ISBN");
      const { entity } = diagnose(run, { summary: false, entity: "k1", field });
      expect(entity?.field).to.equal("f-isbn");
      expect(entity?.cells).to.deep.equal([
        { rowId: "row-1", fieldId: "f-isbn", value: null, missingReason: "not_found", evidenceIds: ["art-1#0"] },
      ]);
      expect(entity?.paths[0]?.firstFailure).to.deep.include({
        stage: "extraction",
        code: "cell_not_found",
        failure: true,
      });
    });

    it("answers an entity not seen on a source read whole as absent, without inventing cells", () => {
      const { entity } = diagnose(run, { summary: false, entity: "k9" });
      expect(entity?.outcome).to.equal("absent");
      expect(entity?.cells).to.deep.equal([]);
      expect(entity?.entityFacts).to.deep.equal([
        {
          stage: "reconciliation",
          code: "not_seen",
          detail: "Every page of the source was read and no record had this key: the row went missing.",
          evidenceId: "row-9",
          failure: true,
        },
      ]);
    });
  });

  describe("a held run", () => {
    const recorded = evidence({
      pages: [["art-1", p1]],
      facts: [book("k1", p1, 0), book("k2", p1, 1)],
      plan: {
        pagesToCharge: 3,
        reconciliation: reconciliation({ new: 1, unchanged: 1, rowIds: { k1: "row-1", k2: "row-2" }, created: ["k2"] }),
      },
    });
    const run = recording("held", recorded, { checks: allChecks, error: "cannot pay" });

    it("says every check passed but the owner cannot pay, and writes nothing", () => {
      const d = diagnose(run, { summary: true });
      expect(d.findings[0]).to.deep.equal({
        code: "run_held_insufficient_credits",
        message: "Every check passed, but the owner cannot pay for 3 pages; nothing was written or charged.",
      });
      expect(d.completion.outputComplete).to.equal(false);
      expect(d.summary?.outputComplete).to.equal(false);
      expect(d.reconciliation?.applied).to.equal(false);
      expect(d.cost).to.deep.include({ pagesToCharge: 3, pagesCharged: 0 });
      const notWritten = d.summary?.failureGroups.find((g) => g.code === "not_written_held");
      expect(notWritten?.stage).to.equal("output");
      expect(notWritten?.counts.present).to.equal(2);
      if (d.summary) expectConsistent(d.summary);
    });

    it("names the row of an existing entity, and no row for one the run would have created", () => {
      expect(diagnose(run, { summary: false, entity: "k1" }).entity?.cells[0]?.rowId).to.equal("row-1");
      expect(diagnose(run, { summary: false, entity: "k2" }).entity?.cells[0]?.rowId).to.equal(null);
    });
  });

  describe("a failed run: a page answered 429 and a value did not convert", () => {
    const recorded = evidence({
      pages: [["art-1", p1]],
      facts: [
        book("k1", p1, 0),
        fact("k2", p1, 1, [
          ["f-link", "k2"],
          ["f-price", null, "extraction_failed", "abc"],
        ]),
      ],
      failures: [
        {
          stage: "retrieval",
          code: "rate_limited",
          detail: "429 Too Many Requests.",
          url: p2,
          stepId: "step-9",
          status: 429,
        },
      ],
      plan: {
        checks: [{ checkId: "extraction", records: [{ rowKey: "k2", pageUrl: p1, index: 1 }] }],
        knownRowIds: { k1: "row-1" },
      },
    });
    const run = recording("failed", recorded, {
      checks: [
        { checkId: "coverage", passed: false, message: `Reading ${p2} failed (rate_limited).` },
        passed("identity"),
        { checkId: "extraction", passed: false, message: 'price "abc" is not a valid value' },
        passed("minimum-items"),
      ],
      error: "coverage: ... | extraction: ...",
    });

    it("reports the unread page as unknown, never as an absent entity", () => {
      const d = diagnose(run, { summary: true });
      const summary = d.summary;
      if (!summary) throw new Error("summary missing");
      expect(summary.outputComplete).to.equal(false);
      const retrieval = summary.failureGroups.find((g) => g.stage === "retrieval");
      expect(retrieval).to.deep.include({
        code: "rate_limited",
        counts: { present: 0, absent: 0, unknown: 0, ambiguous: 0, recovered: 0 },
      });
      expect(retrieval?.examples).to.deep.equal([{ entity: "", evidenceId: "step-9", url: p2 }]);
      expect(summary.totals.absent).to.equal(0);
      expect(summary.unknowns[0]).to.contain(p2).and.contain("unknown");
      expect(d.sources[1]).to.deep.equal({
        url: p2,
        outcome: "refused",
        failure: { reason: "rate_limited", status: 429, detail: "429 Too Many Requests." },
        records: 0,
        evidenceIds: ["step-9"],
        reused: null,
      });
      expect(d.findings.map((f) => f.code)).to.include.members([
        "run_failed_checks",
        "check_failed:coverage",
        "check_failed:extraction",
        "page_not_read:rate_limited",
      ]);
      expect(d.completion.checks.find((c) => c.checkId === "extraction")?.recordsNamed).to.equal(1);
      expect(d.completion.checks.find((c) => c.checkId === "extraction")?.records).to.deep.equal([
        { entity: "k2", url: p1, evidenceId: "art-1#1" },
      ]);
      expect(d.unknowns.some((u) => u.includes("Reconciliation was not reached"))).to.equal(true);
      expectConsistent(summary);
    });

    it("traces the failing entity to its first failure and names its existing row", () => {
      const k2 = diagnose(run, { summary: false, entity: "k2" }).entity;
      expect(k2?.paths[0]?.firstFailure).to.deep.include({ stage: "extraction", code: "cell_extraction_failed" });
      expect(k2?.entityFacts.map((f) => f.code)).to.include("check:extraction");
      expect(k2?.unknownStages).to.deep.equal(["reconciliation"]);
      const k1 = diagnose(run, { summary: false, entity: "k1" }).entity;
      expect(k1?.cells.every((c) => c.rowId === "row-1")).to.equal(true);
    });

    it("an entity not recorded is unknown, with the unread page as the path it may have taken", () => {
      const { entity } = diagnose(run, { summary: false, entity: "k7" });
      expect(entity?.outcome).to.equal("unknown");
      expect(entity?.matchedNames).to.deep.equal([]);
      expect(entity?.paths).to.have.length(1);
      expect(entity?.paths[0]).to.deep.include({ url: p2 });
      expect(entity?.paths[0]?.firstFailure).to.deep.include({ stage: "retrieval", evidenceId: "step-9" });
      expect(entity?.unknowns[0]).to.contain('"k7"');
    });
  });

  describe("a blocked run and a run not recorded yet", () => {
    it("a blocked run says the site refused, names the page and has no entities", () => {
      const recorded = evidence({
        pages: [],
        facts: [],
        failures: [{ stage: "retrieval", code: "forbidden", detail: "403.", url: p1, stepId: "step-1", status: 403 }],
        plan: {},
      });
      const d = diagnose(recording("blocked", recorded, { checks: [passed("coverage")] }), { summary: true });
      expect(d.findings[0]).to.deep.equal({
        code: "run_blocked",
        message: `The site refused every read: ${p1} answered forbidden (HTTP 403); nothing was written or charged.`,
      });
      expect(d.summary?.entities).to.deep.equal([]);
      expect(d.summary?.totals.entities).to.equal(0);
      expect(d.cost.reason).to.contain("refused");
    });

    it("a queued run reports what is not recorded instead of guessing", () => {
      const d = diagnose(recording("queued", null, { startedAt: null, completedAt: null }), { summary: true });
      expect(d.observations).to.equal(null);
      expect(d.request).to.equal(null);
      expect(d.unknowns).to.deep.equal(["Nothing was recorded for this run yet (it is queued)."]);
      expect(d.summary?.totals.entities).to.equal(0);
    });
  });

  describe("names and limits", () => {
    it("a composite identity is found by any of its values; the others are aliases", () => {
      const key = JSON.stringify(["Dune", "1965"]);
      const recorded = evidence({ pages: [["art-1", p1]], facts: [book(key, p1, 0)], plan: {} });
      const run = recording("failed", recorded);
      const { entity } = diagnose(run, { summary: false, entity: "Dune" });
      expect(entity?.outcome).to.equal("present");
      expect(entity?.matchedNames).to.deep.equal([key, "Dune", "1965"]);
      expect(diagnose(run, { summary: true }).summary?.entities[0]?.aliases).to.deep.equal(["Dune", "1965"]);
    });

    it("a duplicated key is ambiguous, with an example citing the repeated record", () => {
      const recorded = evidence({ pages: [["art-1", p1]], facts: [book("k1", p1, 0), book("k1", p1, 3)], plan: {} });
      const d = diagnose(recording("failed", recorded), { summary: true });
      expect(d.summary?.duplicates).to.deep.equal({
        entities: 1,
        examples: [{ entity: "k1", code: "duplicate_key", evidenceId: "art-1#3" }],
      });
      expect(d.summary?.entities[0]?.outcome).to.equal("ambiguous");
    });

    it("keeps at most 20 unknowns and clips finding codes to 100 characters", () => {
      const failures = Array.from({ length: 30 }, (_, i) => ({
        stage: "retrieval",
        code: `network_${"x".repeat(120)}`,
        detail: "reset",
        url: `${site}/p${i}`,
        stepId: `s-${i}`,
      }));
      const d = diagnose(recording("failed", evidence({ pages: [], facts: [], failures, plan: {} })), {
        summary: true,
      });
      expect(d.unknowns).to.have.length(20);
      expect(d.unknowns[19]).to.contain("more unknowns were left out");
      expect(d.summary?.unknowns).to.have.length(20);
      expect(d.findings.every((f) => f.code.length <= 100 && f.message.length <= 1000)).to.equal(true);
    });

    it("a check naming many records names each of them, the 25th included; the answer lists 20", () => {
      const facts = Array.from({ length: 25 }, (_, i) => fact(`k${i}`, p1, i, [["f-price", null, "not_found"]]));
      const named = facts.map((f) => ({ rowKey: f.rowKey, pageUrl: p1, index: f.index }));
      const recorded = evidence({
        pages: [["art-1", p1]],
        facts,
        plan: { checks: [{ checkId: "present:f-price", records: named }] },
      });
      const run = recording("failed", recorded, {
        checks: [{ checkId: "present:f-price", passed: false, message: "price is missing" }],
      });
      const last = diagnose(run, { summary: false, entity: "k24" }).entity;
      expect(last?.entityFacts.map((f) => f.code)).to.include("check:present:f-price");
      const check = diagnose(run, { summary: false }).completion.checks[0];
      expect(check?.recordsNamed).to.equal(25);
      expect(check?.records).to.have.length(20);
    });

    it("resolves a field by id or exact label, and nothing else", () => {
      expect(resolveField(columns, "f-price")?.id).to.equal("f-price");
      expect(resolveField(columns, "PRICE")?.id).to.equal("f-price");
      expect(resolveField(columns, "price")).to.equal(undefined);
      expect(resolveField(columns, "nofield")).to.equal(undefined);
    });
  });
});
