import { expect } from "chai";
import * as Effect from "effect/Effect";
import type { Cell } from "../src/engine/coerce.js";
import { reconcile } from "../src/engine/reconcile.js";
import type { ExtractedRecord } from "../src/engine/extract.js";
import type { RowRecord } from "../src/run-domain.js";
import type { DatasetColumn } from "../src/schema/column.js";
import type { DatasetId, FieldId, ObservationId, RevisionId, RowId, RunId } from "../src/schema/ids.js";
import type { EditRowRequest } from "../src/schema/requests-rows.js";
import { applyValues, editRequestHash } from "../src/usecases/row-edit.js";

const id = <A extends string>(n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}` as A;
const KEY = id<FieldId>(1);
const PRICE = id<FieldId>(2);
const NOTES = id<FieldId>(3);
const columns: DatasetColumn[] = [
  { id: KEY, label: "link", ownership: "collected", name: "link", type: "string", key: true },
  { id: PRICE, label: "price", ownership: "collected", name: "price", type: "number", key: false },
  { id: NOTES, label: "notes", ownership: "user", name: "notes", type: "string", key: false },
];
const OBS_1 = id<ObservationId>(101);
const OBS_2 = id<ObservationId>(102);
const REV = id<RevisionId>(201);

const row: RowRecord = {
  id: id<RowId>(301),
  datasetId: id<DatasetId>(401),
  rowKey: "book-1",
  data: { [KEY]: "book-1", [PRICE]: 10, [NOTES]: null },
  evidence: { [KEY]: [{ observationId: OBS_1, entryId: "e0" }], [PRICE]: [{ observationId: OBS_1, entryId: "e0" }] },
  overrides: {},
  missingReasons: {},
  presence: "present",
  status: "new",
  firstSeenRunId: id<RunId>(501),
  lastSeenRunId: id<RunId>(501),
  sourceUrl: "http://books.test/index.html",
  observedAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
  revisionId: REV,
};

const edit = (change: Partial<EditRowRequest>): EditRowRequest => ({
  expectedRevisionId: REV as never,
  requestId: "r1",
  ...change,
});

const record = (price: number | null, missingReason?: "extraction_failed"): ExtractedRecord => ({
  pageUrl: "http://books.test/index.html",
  index: 0,
  entryId: "e7",
  rowKey: "book-1",
  cells: new Map<string, Cell>([
    [KEY, { value: "book-1", missingReason: null, raw: "book-1" }],
    [PRICE, { value: price, missingReason: missingReason ?? null, raw: String(price) }],
  ]),
});

const runOver = (current: RowRecord, extracted: ExtractedRecord) =>
  reconcile({
    datasetId: current.datasetId,
    runId: id<RunId>(502),
    schemaVersion: 1,
    columns,
    current: [current],
    records: [extracted],
    observationByPage: new Map([["http://books.test/index.html", OBS_2]]),
    now: "2026-01-02T00:00:00.000Z",
  });

describe("row edits: overrides", () => {
  it("a first manual value keeps the source value and evidence as the override snapshot", () => {
    const next = applyValues(row, columns, edit({ values: { [PRICE]: 99 } }));
    expect(next.data[PRICE]).to.equal(99);
    expect(next.overrides[PRICE]).to.deep.equal({ value: 10, evidence: [{ observationId: OBS_1, entryId: "e0" }] });
    expect(next.evidence[PRICE]).to.equal(undefined);
  });

  it("a second manual value keeps the original source snapshot, not the first manual value", () => {
    const first = { ...row, ...applyValues(row, columns, edit({ values: { [PRICE]: 99 } })) };
    const second = applyValues(first, columns, edit({ values: { [PRICE]: null } }));
    expect(second.data[PRICE]).to.equal(null);
    expect(second.overrides[PRICE]?.value).to.equal(10);
  });

  it("user-owned fields are set without an override", () => {
    const next = applyValues(row, columns, edit({ values: { [NOTES]: "signed copy" } }));
    expect(next.data[NOTES]).to.equal("signed copy");
    expect(next.overrides).to.deep.equal({});
  });

  it("reset restores the snapshot's value, evidence and missing reason and removes the override", () => {
    const overridden: RowRecord = {
      ...row,
      data: { ...row.data, [PRICE]: 5 },
      overrides: {
        [PRICE]: { value: null, evidence: [{ observationId: OBS_2, entryId: "e7" }], missingReason: "not_found" },
      },
      evidence: { [KEY]: row.evidence[KEY]! },
    };
    const next = applyValues(overridden, columns, edit({ resetFieldIds: [PRICE] }));
    expect(next.data[PRICE]).to.equal(null);
    expect(next.missingReasons[PRICE]).to.equal("not_found");
    expect(next.evidence[PRICE]).to.deep.equal([{ observationId: OBS_2, entryId: "e7" }]);
    expect(next.overrides).to.deep.equal({});
  });

  it("a later run refreshes the snapshot and never the manual value; a reset then restores that run's value", () => {
    const overridden: RowRecord = { ...row, ...applyValues(row, columns, edit({ values: { [PRICE]: 99 } })) };
    const run = runOver(overridden, record(12.5));
    const after = run.rows[0]!.row;
    expect(after.data[PRICE]).to.equal(99);
    expect(after.overrides[PRICE]).to.deep.equal({ value: 12.5, evidence: [{ observationId: OBS_2, entryId: "e7" }] });
    const reset = applyValues(after, columns, edit({ resetFieldIds: [PRICE] }));
    expect(reset.data[PRICE]).to.equal(12.5);
    expect(reset.evidence[PRICE]).to.deep.equal([{ observationId: OBS_2, entryId: "e7" }]);
  });
});

describe("row edits: request hash", () => {
  const hash = (rowId: string, request: EditRowRequest) => Effect.runPromise(editRequestHash(rowId, request));

  it("is the same for the same payload in any key or reset order", async () => {
    const a = await hash(row.id, edit({ values: { [PRICE]: 1, [NOTES]: "x" }, resetFieldIds: [KEY, PRICE] }));
    const b = await hash(row.id, edit({ values: { [NOTES]: "x", [PRICE]: 1 }, resetFieldIds: [PRICE, KEY] }));
    expect(a)
      .to.equal(b)
      .and.match(/^sha256:[0-9a-f]{64}$/);
  });

  it("differs when the value, the row, the expected revision or a value's type differs", async () => {
    const base = await hash(row.id, edit({ values: { [PRICE]: 1 } }));
    const others = await Promise.all([
      hash(row.id, edit({ values: { [PRICE]: 2 } })),
      hash(row.id, edit({ values: { [PRICE]: "1" } })),
      hash(id(999), edit({ values: { [PRICE]: 1 } })),
      hash(row.id, { ...edit({ values: { [PRICE]: 1 } }), expectedRevisionId: id(998) }),
      hash(row.id, edit({ resetFieldIds: [PRICE] })),
    ]);
    for (const other of others) expect(other).to.not.equal(base);
    // The requestId itself is the key, not part of the payload.
    expect(await hash(row.id, { ...edit({ values: { [PRICE]: 1 } }), requestId: "other" })).to.equal(base);
  });
});
