import { expect } from "chai";
import type { DatasetColumn, DatasetId, ObservationId, RowRecord, RunId } from "../../src/index.js";
import type { Cell } from "../../src/engine/coerce.js";
import type { ExtractedRecord } from "../../src/engine/extract.js";
import { type ReconcileInput, reconcile } from "../../src/engine/reconcile.js";

// reconcile's rules for rows a run sees again (decision 0005): what stays, what changes, what is a
// revision. An unchanged row is built apart from a changed one (it needs nothing of the source's
// view), so each rule is pinned here for both.

const datasetId = "00000000-0000-4000-8000-0000000000d1" as DatasetId;
const columns = [
  { id: "f-title", label: "Title", ownership: "collected", name: "title", type: "string", key: true },
  { id: "f-price", label: "Price", ownership: "collected", name: "price", type: "number", key: false },
  { id: "f-note", label: "Note", ownership: "user", name: "note", type: "string", key: false },
] as unknown as ReadonlyArray<DatasetColumn>;

const cell = (value: Cell["value"], missingReason: Cell["missingReason"] = null): Cell => ({
  value,
  missingReason,
  raw: value === null ? null : String(value),
});

const record = (
  key: string,
  price: Cell,
  { pageUrl = "https://shop.test/p1", identity }: { pageUrl?: string; identity?: ExtractedRecord["identity"] } = {},
): ExtractedRecord => ({
  pageUrl,
  index: 0,
  entryId: `e-${key}`,
  cells: new Map([
    ["f-title", cell(key)],
    ["f-price", price],
  ]),
  rowKey: key,
  ...(identity ? { identity } : {}),
});

const run = (
  n: number,
  current: ReadonlyArray<RowRecord>,
  records: ReadonlyArray<ExtractedRecord>,
): ReconcileInput & { observationByPage: Map<string, ObservationId> } => ({
  datasetId,
  runId: `run-${n}` as RunId,
  schemaVersion: 1,
  columns,
  current,
  records,
  observationByPage: new Map([
    ["https://shop.test/p1", `obs-${n}-1` as ObservationId],
    ["https://shop.test/p2", `obs-${n}-2` as ObservationId],
  ]),
  now: `2026-11-0${n}T00:00:00.000Z`,
});

const identityOf = (anchor: string) =>
  ({ version: 1, key: `entity:${"a".repeat(64)}`, kind: "product", anchor, aliases: [anchor] }) as const;

/** The rows after a first run that created "a" (price 1) and "b" (price missing: not found). */
const firstRows = () =>
  reconcile(run(1, [], [record("a", cell(1)), record("b", cell(null, "not_found"))])).rows.map((r) => r.row);

describe("reconcile: rows a run sees again", () => {
  it("leaves an unchanged row's values, missing reasons and evidence as they were; only its seen-markers move", () => {
    const before = firstRows();
    const again = reconcile(run(2, before, [record("a", cell(1)), record("b", cell(null, "not_found"))]));
    expect(again.revisions).to.deep.equal([]);
    expect(again.rowDeltas).to.deep.equal({ new: 0, changed: 0, gone: 0 });
    expect(again.record).to.include({ unchanged: 2, new: 0, changed: 0 });
    expect(again.rows.map((r) => [r.row.rowKey, r.seenOnly, r.expectedRevisionId])).to.deep.equal([
      ["a", true, before[0]!.revisionId],
      ["b", true, before[1]!.revisionId],
    ]);
    for (const [i, { row }] of again.rows.entries()) {
      expect(row).to.deep.equal({
        ...before[i],
        status: "unchanged",
        lastSeenRunId: "run-2",
        observedAt: "2026-11-02T00:00:00.000Z",
      });
      // Still citing the first run's observation: the values were read there.
      expect(row.evidence["f-price"]).to.deep.equal([{ observationId: "obs-1-1", entryId: `e-${row.rowKey}` }]);
    }
  });

  it("keeps an overridden cell's manual value and snapshot on an unchanged row, and names the override kept", () => {
    const [a] = firstRows();
    const edited: RowRecord = {
      ...a!,
      data: { ...a!.data, "f-price": 9 },
      overrides: {
        "f-price": { value: 1, evidence: [{ observationId: "obs-1-1", entryId: "e-a" }] },
      } as unknown as RowRecord["overrides"],
    };
    const again = reconcile(run(2, [edited], [record("a", cell(1))]));
    expect(again.revisions).to.deep.equal([]);
    expect(again.record.overridesKept).to.deep.equal([{ rowKey: "a", fieldId: "f-price" }]);
    const [{ row }] = again.rows as [{ row: RowRecord }];
    expect(row.data["f-price"]).to.equal(9);
    expect(row.overrides).to.deep.equal(edited.overrides);
  });

  it("revises a row whose source value moved under an override: the manual value stays, the snapshot follows", () => {
    const [a] = firstRows();
    const edited: RowRecord = {
      ...a!,
      data: { ...a!.data, "f-price": 9 },
      overrides: { "f-price": { value: 1, evidence: [] } } as unknown as RowRecord["overrides"],
    };
    const again = reconcile(run(2, [edited], [record("a", cell(2))]));
    expect(again.revisions.map((r) => [r.kind, r.changedFieldIds])).to.deep.equal([["updated", ["f-price"]]]);
    const [{ row }] = again.rows as [{ row: RowRecord }];
    expect(row.data["f-price"]).to.equal(9);
    expect(row.overrides["f-price"]).to.deep.equal({
      value: 2,
      evidence: [{ observationId: "obs-2-1", entryId: "e-a" }],
    });
    expect(again.record.overridesKept).to.deep.equal([{ rowKey: "a", fieldId: "f-price" }]);
  });

  it("counts a changed value or missing reason as a change, and cites the new read for it", () => {
    const before = firstRows();
    const again = reconcile(run(2, before, [record("a", cell(2)), record("b", cell(null, "not_applicable"))]));
    expect(again.revisions.map((r) => [r.kind, r.changedFieldIds])).to.deep.equal([
      ["updated", ["f-price"]],
      ["updated", ["f-price"]],
    ]);
    const [a, b] = again.rows.map((r) => r.row);
    expect(a!.data).to.deep.equal({ "f-title": "a", "f-price": 2, "f-note": null });
    expect(a!.evidence["f-price"]).to.deep.equal([{ observationId: "obs-2-1", entryId: "e-a" }]);
    expect(b!.missingReasons).to.deep.equal({ "f-price": "not_applicable" });
    expect(again.record.changedKeys).to.deep.equal(["a", "b"]);
  });

  it("writes an unchanged row that moved page or identity whole (not seen only), with no revision", () => {
    const before = firstRows();
    const again = reconcile(
      run(2, before, [
        record("a", cell(1), { pageUrl: "https://shop.test/p2" }),
        record("b", cell(null, "not_found"), { identity: identityOf("b") }),
      ]),
    );
    expect(again.revisions).to.deep.equal([]);
    const [a, b] = again.rows;
    expect(a).to.include({ seenOnly: false });
    expect(a!.row).to.include({ sourceUrl: "https://shop.test/p2", status: "unchanged" });
    expect(b).to.include({ seenOnly: false });
    expect(b!.row.identity).to.deep.equal(identityOf("b"));
  });

  it("brings a missing row back with a returned revision even when its values are the same", () => {
    const [a] = firstRows();
    const missing: RowRecord = { ...a!, presence: "missing", status: "gone" };
    const again = reconcile(run(2, [missing], [record("a", cell(1))]));
    expect(again.revisions.map((r) => [r.kind, r.changedFieldIds])).to.deep.equal([["returned", []]]);
    expect(again.rows[0]!.row).to.include({ presence: "present", status: "changed" });
    expect(again.record.returnedKeys).to.deep.equal(["a"]);
  });
});
