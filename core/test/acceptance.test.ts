import { expect } from "chai";
import { type AcceptanceFacts, decideAcceptance, rowsAfterAcceptance } from "../src/rules/acceptance.js";
import type { RowRecord, RunAcceptance, RunRecord } from "../src/run-domain.js";

// The acceptance rule every store applies (memory, PostgreSQL, MongoDB); the stores' own tests and
// the conformance suite prove they feed it the facts they read under their locks.

const run = {
  id: "11111111-1111-4111-8111-111111111111",
  datasetId: "22222222-2222-4222-8222-222222222222",
  ownerId: "33333333-3333-4333-8333-333333333333",
  status: "succeeded",
  queuedAt: "2026-11-01T00:00:00.000Z",
  completedAt: "2026-11-01T00:00:05.000Z",
} as unknown as RunRecord;
const row = (id: string) => ({ id }) as unknown as RowRecord;

const acceptance = (rows: RunAcceptance["rows"] = []): RunAcceptance =>
  ({
    run,
    rows,
    revisions: [],
    observations: [],
    charge: { ownerId: run.ownerId, pages: 3, entryId: "44444444-4444-4444-8444-444444444444" },
    evidence: {},
    heldRun: { ...run, status: "held" },
  }) as unknown as RunAcceptance;

const facts = (overrides: Partial<AcceptanceFacts> = {}): AcceptanceFacts => ({
  storedRun: { ...run, status: "running" },
  rowHeads: new Map(),
  alreadyCharged: false,
  balance: 10,
  ...overrides,
});

describe("the acceptance decision", () => {
  it("accepts and charges the pages once, dated when the run completed", () => {
    const decision = decideAcceptance(acceptance(), facts());
    expect(decision._tag).to.equal("Accepted");
    expect(decision._tag === "Accepted" && decision.charge).to.deep.include({
      kind: "charge",
      amount: -3,
      pages: 3,
      runId: run.id,
      datasetId: run.datasetId,
      createdAt: run.completedAt,
    });
  });

  it("answers AlreadyFinished with the stored run when another delivery finished it, or the run when it is gone", () => {
    const finished = { ...run, status: "failed" } as RunRecord;
    expect(decideAcceptance(acceptance(), facts({ storedRun: finished }))).to.deep.equal({
      _tag: "AlreadyFinished",
      run: finished,
    });
    expect(decideAcceptance(acceptance(), facts({ storedRun: null }))).to.deep.equal({ _tag: "AlreadyFinished", run });
  });

  it("refuses with RowsChanged when a row head moved, appeared or disappeared since the engine read it", () => {
    const heads = new Map<string, string | null>([["a", "r2"]]);
    const changed = [
      [{ row: row("a"), expectedRevisionId: "r1" }],
      [{ row: row("a"), expectedRevisionId: "absent" }],
      [{ row: row("b"), expectedRevisionId: null }],
    ] as unknown as RunAcceptance["rows"][];
    for (const rows of changed) {
      expect(decideAcceptance(acceptance(rows), facts({ rowHeads: heads }))._tag).to.equal("RowsChanged");
    }
    const same = [{ row: row("a"), expectedRevisionId: "r2" }] as unknown as RunAcceptance["rows"];
    expect(decideAcceptance(acceptance(same), facts({ rowHeads: heads }))._tag).to.equal("Accepted");
  });

  it("holds the run when the balance is short, but never re-checks the balance of a run already charged", () => {
    expect(decideAcceptance(acceptance(), facts({ balance: 2 }))).to.deep.equal({
      _tag: "Held",
      run: { ...run, status: "held" },
    });
    expect(decideAcceptance(acceptance(), facts({ balance: 0, alreadyCharged: true }))).to.deep.equal({
      _tag: "Accepted",
      run,
      charge: null,
    });
  });
});

describe("the acceptance decision for drift and held runs", () => {
  it("holds a run the drift rule tripped whatever the balance, but only once its rows are current", () => {
    const drifted = { ...acceptance(), holdForDrift: true } as RunAcceptance;
    expect(decideAcceptance(drifted, facts({ balance: 1000 }))._tag).to.equal("Held");
    const moved = [{ row: row("a"), expectedRevisionId: "r1" }] as unknown as RunAcceptance["rows"];
    const stale = { ...acceptance(moved), holdForDrift: true } as RunAcceptance;
    expect(decideAcceptance(stale, facts({ rowHeads: new Map([["a", "r2"]]) }))._tag).to.equal("RowsChanged");
  });

  it("accepts a held run only while it is held and the dataset's newest run", () => {
    const accepting = { ...acceptance(), acceptingHeld: true } as RunAcceptance;
    const held = { ...run, status: "held" } as RunRecord;
    const decision = decideAcceptance(accepting, facts({ storedRun: held, newestRunId: run.id }));
    expect(decision._tag).to.equal("Accepted");
    expect(decision._tag === "Accepted" && decision.charge?.amount).to.equal(-3);
    expect(decideAcceptance(accepting, facts({ storedRun: held, newestRunId: "later" }))._tag).to.equal("RowsChanged");
    expect(decideAcceptance(accepting, facts({ newestRunId: run.id }))._tag).to.equal("AlreadyFinished");
  });

  it("answers Unpaid, writing nothing, when a held run's owner still cannot pay", () => {
    const accepting = { ...acceptance(), acceptingHeld: true } as RunAcceptance;
    const held = { ...run, status: "held" } as RunRecord;
    expect(decideAcceptance(accepting, facts({ storedRun: held, newestRunId: run.id, balance: 2 }))).to.deep.equal({
      _tag: "Unpaid",
      balance: 2,
    });
  });
});

describe("the rows after an acceptance", () => {
  const version = (id: string, v: string) => ({ id, v }) as unknown as RowRecord;

  it("replaces each named row by id with its last version, keeps the others, and adds new ones", () => {
    const after = rowsAfterAcceptance(
      [version("a", "1"), version("b", "1"), version("gone-earlier", "1")],
      acceptance([
        { row: version("b", "2"), expectedRevisionId: null },
        { row: version("a", "2"), expectedRevisionId: null, seenOnly: true },
        { row: version("c", "1"), expectedRevisionId: "absent" },
        { row: version("c", "2"), expectedRevisionId: "absent" },
      ]),
    );
    expect(after).to.deep.equal([
      version("a", "2"),
      version("b", "2"),
      version("gone-earlier", "1"),
      version("c", "2"),
    ]);
  });
});
