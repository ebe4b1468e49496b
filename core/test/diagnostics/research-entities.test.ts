import { expect } from "chai";
import * as Schema from "effect/Schema";
import { diagnoseRun, RunDiagnostics } from "../../src/index.js";
import type { RecordedFailure, RecordFact } from "../../src/run-domain.js";
import * as Effect from "effect/Effect";
import { replayFacts } from "../../src/engine/research/replay.js";
import type { ResearchRecipe } from "../../src/schema/research.js";
import { artifact, book, evidence, p1, p2, passed, reconciliation, recording } from "./fixtures.js";

const decode = Schema.decodeUnknownSync(RunDiagnostics, { onExcessProperty: "error", errors: "all" });
const key = `entity:${"a".repeat(64)}`;

/** A research run's merged entity: one record, keyed by identity, seen under two names on two pages. */
const harbour: RecordFact = {
  ...book(key, p1, 0),
  entity: {
    kind: "company",
    anchor: "Harbour & Finch Press",
    aliases: ["Harbour & Finch Press", "H&F Press"],
    pages: [p1, p2],
    conflicts: [],
  },
};

const run = recording(
  "succeeded",
  evidence({
    pages: [["art-1", p1]],
    facts: [harbour],
    plan: { pagesToCharge: 1, reconciliation: reconciliation({ new: 1, rowIds: { [key]: "row-1" }, created: [key] }) },
  }),
  { checks: ["coverage", "identity"].map(passed), chargedPages: 1, rowDeltas: { new: 1, changed: 0, gone: 0 } },
);

/** A run of the entity read on two pages, with values refused at validation. */
const refusedOnTwoPages = (facts: RecordFact[], failures: RecordedFailure[]) =>
  recording(
    "succeeded",
    evidence({
      pages: [
        ["art-1", p1],
        ["art-2", p2],
      ],
      facts,
      failures,
      plan: { reconciliation: reconciliation({ rowIds: { [key]: "row-1" } }) },
    }),
  );

describe("diagnostics of a research run's entities (pure)", () => {
  it("lists the entity under its anchor with every alias in the summary", () => {
    const d = diagnoseRun(run, { summary: true });
    decode(d);
    expect(d.summary?.entities).to.deep.equal([
      {
        entity: "Harbour & Finch Press",
        aliases: ["Harbour & Finch Press", "H&F Press"],
        outcome: "present",
        recovered: false,
        failureCodes: [],
      },
    ]);
  });

  it("entity= matches any alias, names every name it was seen under and its row", () => {
    const d = diagnoseRun(run, { summary: false, entity: "H&F Press" });
    decode(d);
    expect(d.entity?.matchedNames).to.have.members(["Harbour & Finch Press", "H&F Press"]);
    expect(d.entity?.outcome).to.equal("present");
    expect(d.entity?.cells.map((c) => c.rowId)).to.include("row-1");
  });

  it("says which basis it answers from: replay recomputes the entity from the artifacts, and says so", async () => {
    // The recording keeps no facts; the artifacts hold the page text and the model's answer.
    const text = "Harbour & Finch Press (H&F Press) is based in Bristol.";
    const answer = {
      rows: [
        {
          entity: { kind: "company", name: "Harbour & Finch Press", aliases: ["H&F Press"] },
          cells: [{ column: "title", status: "found", value: "Bristol", quote: "based in Bristol" }],
        },
      ],
    };
    const researchRecipe: ResearchRecipe = {
      version: 1,
      question: "Which presses?",
      columns: [{ id: "f-title", name: "title", label: "TITLE", type: "string", description: null }],
      plan: { entityKind: "company", queries: [], entityNaming: "", columnHints: [] },
      model: { provider: "replay", modelId: "m" },
      searchEngine: null,
      promptVersion: "gleaner-research/3",
      limits: { maxPages: 10, maxItems: 100, maxQueries: 0, maxRowsPerPage: 25 },
    };
    const stored = evidence({ pages: [], facts: [], plan: {} });
    const withArtifacts = {
      ...stored,
      recipe: researchRecipe,
      artifacts: [
        { ...artifact("art-1", p1), kind: "cleaned page text" as const, contentType: "text/plain", body: text },
        { ...artifact("art-2", p1), kind: "extraction output" as const, body: JSON.stringify(answer) },
      ],
    };
    const replayed = await Effect.runPromise(replayFacts(withArtifacts, researchRecipe));
    const asked = { summary: true, entity: "H&F Press" } as const;
    const recorded = diagnoseRun(recording("succeeded", withArtifacts), asked);
    const replay = diagnoseRun(recording("succeeded", { ...withArtifacts, ...replayed }), {
      ...asked,
      summary: false,
      basis: "replay",
      replayUnknowns: replayed.unknowns,
    });
    decode(replay);
    expect([recorded.basis, recorded.entity?.outcome]).to.deep.equal(["recorded", "unknown"]);
    expect([replay.basis, replay.entity?.basis, replay.entity?.outcome]).to.deep.equal(["replay", "replay", "present"]);
    expect(replay.entity?.matchedNames).to.have.members(["Harbour & Finch Press", "H&F Press"]);
    expect(replay.entity?.cells.find((c) => c.fieldId === "f-title")?.value).to.equal("Bristol");
    expect(diagnoseRun(run, { summary: true, basis: "replay" }).summary?.basis).to.equal("replay");
  });

  it("says why a cell's value was refused when the refusal was on another page of the entity", () => {
    const lost = {
      ...harbour,
      cells: harbour.cells.map((c) =>
        c.fieldId === "f-isbn" ? { ...c, value: null, missingReason: "extraction_failed" as const, raw: "99" } : c,
      ),
    };
    const refused = refusedOnTwoPages(
      [lost],
      [
        {
          stage: "validation",
          code: "quote_not_on_page",
          detail: "H&F Press: the value of field f-isbn was refused (quote_not_on_page).",
          url: p2,
          entity: "H&F Press",
        },
      ],
    );
    const d = diagnoseRun(refused, { summary: false, entity: "Harbour & Finch Press", field: refused.columns[3] });
    const cell = d.entity?.entityFacts.find((f) => f.code === "cell_extraction_failed");
    expect(cell?.detail).to.contain("the value was refused (quote_not_on_page)");
  });

  it("lists each refused value once in the summary, naming the page it was refused on", () => {
    const refusedOn = (url: string, code: string) => ({
      stage: "validation",
      code,
      detail: `H&F Press: refused (${code}).`,
      url,
      entity: "H&F Press",
    });
    const refused = refusedOnTwoPages(
      [harbour],
      [refusedOn(p2, "entity_not_on_page"), refusedOn(p1, "quote_not_on_page"), refusedOn(p2, "quote_not_on_page")],
    );
    const d = diagnoseRun(refused, { summary: true });
    decode(d);
    const group = (code: string) => d.summary?.failureGroups.find((g) => g.stage === "validation" && g.code === code);
    expect(group("entity_not_on_page")?.examples).to.deep.equal([
      { entity: "H&F Press", evidenceId: "art-2", url: p2 },
    ]);
    expect(group("quote_not_on_page")?.examples.map((e) => e.url)).to.deep.equal([p1, p2]);
    // Counted once per entity, and the entity carries each code.
    expect(group("quote_not_on_page")?.counts.present).to.equal(1);
    expect(d.summary?.entities[0]?.failureCodes).to.have.members(["entity_not_on_page", "quote_not_on_page"]);
  });

  it("names the entity, never its row key, in every example: cells, missing cells, checks, overrides kept", () => {
    const lost = {
      ...harbour,
      cells: harbour.cells.map((c) =>
        c.fieldId === "f-isbn" ? { ...c, value: null, missingReason: "not_found" as const, raw: null } : c,
      ),
    };
    const failed = recording(
      "failed",
      evidence({
        pages: [["art-1", p1]],
        facts: [lost],
        plan: {
          checks: [{ checkId: "required:f-isbn", records: [{ rowKey: key, pageUrl: p1, index: 0 }] }],
          reconciliation: reconciliation({
            rowIds: { [key]: "row-1" },
            overridesKept: [{ rowKey: key, fieldId: "f-title" }],
          }),
        },
      }),
      { checks: [{ checkId: "required:f-isbn", passed: false, message: "ISBN is missing." }] },
    );
    const d = diagnoseRun(failed, { summary: true });
    decode(d);
    const names = [
      ...d.cells.flatMap((c) => c.examples.map((e) => e.entity)),
      ...(d.summary?.missingCells ?? []).flatMap((c) => c.examples.map((e) => e.entity)),
      ...d.completion.checks.flatMap((c) => c.records.map((r) => r.entity)),
      ...(d.reconciliation?.overridesKept.examples ?? []).map((e) => e.entity),
    ];
    expect(names).to.deep.equal(Array(4).fill("Harbour & Finch Press"));
  });

  it("shows a conflict on the entity and field: every value with its page and quote, and which was written and why", () => {
    const conflicted = recording(
      "succeeded",
      evidence({
        pages: [
          ["art-1", p1],
          ["art-2", p2],
        ],
        facts: [
          {
            ...harbour,
            entity: {
              ...harbour.entity!,
              conflicts: [
                {
                  fieldId: "f-title",
                  values: ["Bristol", "Bath"],
                  choices: [
                    { value: "Bristol", pageUrl: p1, quote: "based in Bristol", written: true },
                    { value: "Bath", pageUrl: p2, quote: "an office in Bath", written: false },
                  ],
                },
              ],
            },
          },
        ],
        plan: { reconciliation: reconciliation({ rowIds: { [key]: "row-1" } }) },
      }),
    );
    const d = diagnoseRun(conflicted, { summary: false, entity: "H&F Press", field: conflicted.columns[1] });
    decode(d);
    const facts = d.entity!.entityFacts.filter((f) => f.code === "value_conflict");
    expect(facts.map((f) => [f.stage, f.evidenceId])).to.deep.equal([
      ["reconciliation", "art-1"],
      ["reconciliation", "art-2"],
    ]);
    expect(facts[0]!.detail).to.contain(
      `${p1} gave "Bristol" ("based in Bristol"); written, because the value most pages support`,
    );
    expect(facts[1]!.detail).to.contain(`${p2} gave "Bath" ("an office in Bath"); not written`);
  });

  it("conflicting values make the entity ambiguous but not a duplicate key", () => {
    const conflicted = recording(
      "succeeded",
      evidence({
        pages: [["art-1", p1]],
        facts: [
          { ...harbour, entity: { ...harbour.entity!, conflicts: [{ fieldId: "f-title", values: ["A", "B"] }] } },
        ],
        plan: { reconciliation: reconciliation({ rowIds: { [key]: "row-1" } }) },
      }),
    );
    const d = diagnoseRun(conflicted, { summary: true });
    decode(d);
    expect(d.summary?.entities[0]?.outcome).to.equal("ambiguous");
    expect(d.summary?.duplicates.entities).to.equal(0);
  });
});
