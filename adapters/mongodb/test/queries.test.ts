import { type DatasetId, newId, type RowId } from "@gleaner/core";
import { expect } from "chai";
import { describe, it } from "mocha";
import { BSON, type UUID } from "mongodb";
import { toUuid } from "../src/bson.js";
import { headsMatch } from "../src/accept.js";
import {
  claimable,
  datasetsPage,
  isEmptyLimit,
  ledgerSince,
  newestDatasetsFirst,
  newestRowsFirst,
  newestRunsFirst,
  revisionsWindow,
  rowsPage,
} from "../src/queries.js";
import { collectionIndexes, indexNames } from "../src/schema.js";
import { firstOfBlock } from "../src/sequences.js";

describe("mongodb: query building", () => {
  const ownerId = newId();
  const datasetId = newId();

  it("the first datasets page filters on the owner only; later pages are strictly after (createdAt, id)", () => {
    expect(datasetsPage(ownerId, null)).to.deep.equal({ ownerId: toUuid(ownerId) });
    const after = { createdAt: "2026-11-01T00:00:00.000Z", id: newId<DatasetId>() };
    expect(datasetsPage(ownerId, after)).to.deep.equal({
      ownerId: toUuid(ownerId),
      $or: [
        { createdAt: { $lt: new Date(after.createdAt) } },
        { createdAt: new Date(after.createdAt), _id: { $lt: toUuid(after.id) } },
      ],
    });
  });

  it("rows: statuses only when given, since as $gte, the keyset on (updatedAt, id)", () => {
    expect(rowsPage(datasetId, { after: null, since: null, statuses: [] })).to.deep.equal({
      datasetId: toUuid(datasetId),
    });
    const after = { updatedAt: "2026-11-02T00:00:00.000Z", id: newId<RowId>() };
    expect(
      rowsPage(datasetId, { after, since: "2026-11-01T00:00:00.000Z", statuses: ["new", "changed"] }),
    ).to.deep.equal({
      datasetId: toUuid(datasetId),
      status: { $in: ["new", "changed"] },
      updatedAt: { $gte: new Date("2026-11-01T00:00:00.000Z") },
      $or: [
        { updatedAt: { $lt: new Date(after.updatedAt) } },
        { updatedAt: new Date(after.updatedAt), _id: { $lt: toUuid(after.id) } },
      ],
    });
  });

  it("revisions: (after, through] on sequence, optional row and changed field", () => {
    expect(revisionsWindow(datasetId, { after: 3, through: 9, rowId: null, fieldId: null })).to.deep.equal({
      datasetId: toUuid(datasetId),
      sequence: { $gt: 3, $lte: 9 },
    });
    const rowId = newId();
    const fieldId = newId();
    expect(revisionsWindow(datasetId, { after: 0, through: 5, rowId, fieldId })).to.deep.equal({
      datasetId: toUuid(datasetId),
      sequence: { $gt: 0, $lte: 5 },
      rowId: toUuid(rowId),
      changedFieldIds: fieldId,
    });
  });

  it("claims a queued run, and a running one only for a redelivery", () => {
    const runId = newId();
    expect(claimable(runId, false)).to.deep.equal({ _id: toUuid(runId), status: "queued" });
    expect(claimable(runId, true)).to.deep.equal({ _id: toUuid(runId), status: { $in: ["queued", "running"] } });
  });

  it("the ledger window starts at `since` as a Date", () => {
    expect(ledgerSince(ownerId, "2026-10-01T00:00:00.000Z")).to.deep.equal({
      ownerId: toUuid(ownerId),
      createdAt: { $gte: new Date("2026-10-01T00:00:00.000Z") },
    });
  });

  it("never sends limit 0 or a negative limit (the driver reads them as 'no limit' / 'one batch')", () => {
    expect([0, -1, Number.NaN, 1, 50].map(isEmptyLimit)).to.deep.equal([true, true, true, false, false]);
  });

  it("BSON orders UUIDs as their canonical strings, so the keyset tiebreak matches memory's", () => {
    const ids = Array.from({ length: 200 }, () => newId());
    const byString = [...ids].sort();
    // The server compares BinData by length, then subtype, then bytes: equal lengths and
    // subtypes leave the bytes, which is what this compares.
    const bytes = (id: string) => Buffer.from((BSON.deserialize(BSON.serialize({ id: toUuid(id) })).id as UUID).buffer);
    const byBytes = [...ids].sort((a, b) => Buffer.compare(bytes(a), bytes(b)));
    expect(byBytes).to.deep.equal(byString);
  });
});

describe("mongodb: indexes back every listing and every guard", () => {
  const keysOf = (collection: keyof typeof collectionIndexes) =>
    collectionIndexes[collection].map((index) => JSON.stringify(index.key));

  it("each listing's sort has an index whose keys are the equality prefix then the sort", () => {
    expect(keysOf("datasets")).to.include(JSON.stringify({ ownerId: 1, ...newestDatasetsFirst }));
    expect(keysOf("runs")).to.include(JSON.stringify({ datasetId: 1, ...newestRunsFirst }));
    expect(keysOf("rows")).to.include(JSON.stringify({ datasetId: 1, ...newestRowsFirst }));
    expect(keysOf("ledger")).to.include(JSON.stringify({ ownerId: 1, seq: -1 }));
    expect(keysOf("revisions")).to.include(JSON.stringify({ datasetId: 1, sequence: 1 }));
  });

  it("the port's uniqueness rules are unique indexes, the partial ones on filters every server supports", () => {
    const all = Object.values(collectionIndexes).flat() as ReadonlyArray<{
      name: string;
      unique?: boolean;
      partialFilterExpression?: object;
    }>;
    const byName = new Map(all.map((index) => [index.name, index]));
    for (const name of Object.values(indexNames)) expect(byName.get(name)?.unique, name).to.equal(true);
    expect(byName.get(indexNames.oneActiveRunPerDataset)?.partialFilterExpression).to.deep.equal({ active: true });
    expect(byName.get(indexNames.oneChargePerRun)?.partialFilterExpression).to.deep.equal({ kind: "charge" });
    expect(byName.get(indexNames.revisionRequest)?.partialFilterExpression).to.deep.equal({
      requestId: { $type: "string" },
    });
  });
});

describe("mongodb: acceptance rules", () => {
  const row = (id: string) => ({ id }) as never;

  it("row heads: absent means no stored row; otherwise the stored head must be the expected one", () => {
    const a = newId();
    const b = newId();
    const heads = new Map<string, string | null>([
      [a, "r1"],
      [b, null],
    ]);
    expect(headsMatch(heads, [{ row: row(a), expectedRevisionId: "r1" as never }])).to.equal(true);
    expect(headsMatch(heads, [{ row: row(a), expectedRevisionId: "r0" as never }])).to.equal(false);
    expect(headsMatch(heads, [{ row: row(b), expectedRevisionId: null }])).to.equal(true);
    expect(headsMatch(heads, [{ row: row(newId()), expectedRevisionId: "absent" }])).to.equal(true);
    expect(headsMatch(heads, [{ row: row(a), expectedRevisionId: "absent" }])).to.equal(false);
    // A row that vanished is not "unchanged", even when the engine expected no revision.
    expect(headsMatch(heads, [{ row: row(newId()), expectedRevisionId: null }])).to.equal(false);
  });

  it("a block of n sequences after $inc by n starts right after the previous last", () => {
    expect(firstOfBlock(5, 5)).to.equal(1);
    expect(firstOfBlock(12, 3)).to.equal(10);
    expect(firstOfBlock(1, 1)).to.equal(1);
  });
});
