import { expect } from "chai";
import { readFileSync } from "node:fs";
import type { DatasetColumn, DatasetId, ObservationId, RowRecord, RunId } from "../src/index.js";
import type { Cell } from "../src/engine/coerce.js";
import type { ExtractedRecord } from "../src/engine/extract.js";
import { reconcile } from "../src/engine/reconcile.js";
import { defaultDriftThresholds, driftMessage, findDrift } from "../src/rules/drift.js";

// The drift rule (decision 0040) on the recorded books catalogue (conformance/fixtures/books: 1000
// real listings): the dataset's rows come from a first run reconciled as the engine does, and each
// case reads what a later run would.

interface Book {
  readonly product_path: string;
  readonly title: string;
  readonly price_gbp: number;
  readonly rating: string;
  readonly page: number;
  readonly index_on_page: number;
}
const catalogue = JSON.parse(
  readFileSync(new URL("../../conformance/fixtures/books/books.json", import.meta.url), "utf8"),
) as ReadonlyArray<Book>;

const columns = [
  { id: "f-link", label: "Link", ownership: "collected", name: "link", type: "url", key: true },
  { id: "f-title", label: "Title", ownership: "collected", name: "title", type: "string", key: false },
  { id: "f-price", label: "Price", ownership: "collected", name: "price", type: "number", key: false },
  { id: "f-rating", label: "Rating", ownership: "collected", name: "rating", type: "string", key: false },
  { id: "f-notes", label: "Notes", ownership: "user", name: "notes", type: "string", key: false },
] as unknown as ReadonlyArray<DatasetColumn>;

const cell = (value: Cell["value"]): Cell => ({
  value,
  missingReason: value === null ? "not_found" : null,
  raw: value === null ? null : String(value),
});
const pageUrl = (book: Book) => `https://books.test/catalogue/page-${book.page}.html`;

/** A run's records over `books`; `read` changes what a column reads (a broken selector, a new price). */
const recordsOf = (
  books: ReadonlyArray<Book>,
  read: (book: Book, fieldId: string, value: Cell["value"]) => Cell["value"] = (_b, _f, v) => v,
): ExtractedRecord[] =>
  books.map((book) => {
    const values: Record<string, Cell["value"]> = {
      "f-link": book.product_path,
      "f-title": book.title,
      "f-price": book.price_gbp,
      "f-rating": book.rating,
    };
    return {
      pageUrl: pageUrl(book),
      index: book.index_on_page - 1,
      entryId: String(book.index_on_page - 1),
      rowKey: book.product_path,
      cells: new Map(Object.entries(values).map(([id, v]) => [id, cell(read(book, id, v))])),
    };
  });

/** The rows a first accepted run over `books` leaves. */
const rowsOf = (books: ReadonlyArray<Book>): RowRecord[] => {
  const observationByPage = new Map(books.map((b) => [pageUrl(b), `obs-${b.page}` as ObservationId]));
  return reconcile({
    datasetId: "d" as DatasetId,
    runId: "run-1" as RunId,
    schemaVersion: 1,
    columns,
    current: [],
    records: recordsOf(books),
    observationByPage,
    now: "2026-11-01T00:00:00.000Z",
  }).rows.map(({ row }) => row);
};

const drift = (current: ReadonlyArray<RowRecord>, records: ReadonlyArray<ExtractedRecord>) =>
  findDrift({ columns, current, records }, defaultDriftThresholds);
const codes = (report: ReturnType<typeof drift>) => report?.findings.map((f) => f.code) ?? null;

const all = catalogue;
const rows = rowsOf(all);

describe("the drift rule", () => {
  it("finds nothing when the run reads the dataset again, or changes 5% of its prices", () => {
    expect(codes(drift(rows, recordsOf(all)))).to.deep.equal([]);
    const repriced = recordsOf(all, (book, id, v) => (id === "f-price" && book.index_on_page === 1 ? 1 : v));
    expect(codes(drift(rows, repriced))).to.deep.equal([]);
  });

  it("holds a run whose price selector stopped matching, naming the figures and the rows emptied", () => {
    const report = drift(
      rows,
      recordsOf(all, (_b, id, v) => (id === "f-price" ? null : v)),
    );
    expect(codes(report)).to.deep.equal(["drift_fill_rate"]);
    const [finding] = report!.findings;
    expect(finding).to.deep.include({ fieldId: "f-price", column: "price", before: 1, after: 0, rowsBefore: 1000 });
    expect(finding!.message).to.equal("price was filled in 0% of 1000 records, 100% before");
    expect(finding!.examples).to.have.length(5);
    expect(finding!.examples[0]).to.deep.include({
      entity: all[0]!.product_path,
      url: pageUrl(all[0]!),
      index: 0,
      previous: all[0]!.price_gbp,
      read: null,
    });
    expect(driftMessage(report!)).to.match(
      /^held: price was filled in 0% of 1000 records, 100% before; the page's layout/,
    );
  });

  it("holds a fill rate falling by 50 points exactly, not by 49", () => {
    const emptied = (n: number) =>
      recordsOf(all, (book, id, v) => (id === "f-rating" && all.indexOf(book) < n ? null : v));
    expect(codes(drift(rows, emptied(500)))).to.deep.equal(["drift_fill_rate"]);
    expect(codes(drift(rows, emptied(490)))).to.deep.equal([]);
  });

  it("holds a run that read fewer than half the rows, and one that would leave half of them gone", () => {
    // 499 of 1000 read: both rules; 500 read: exactly half gone only; 501 read: nothing.
    expect(codes(drift(rows, recordsOf(all.slice(0, 499))))).to.deep.equal(["drift_record_count", "drift_gone_rows"]);
    expect(codes(drift(rows, recordsOf(all.slice(0, 500))))).to.deep.equal(["drift_gone_rows"]);
    expect(codes(drift(rows, recordsOf(all.slice(0, 501))))).to.deep.equal([]);
    // Half the books replaced by others: the count holds up, but half the rows would go missing.
    const report = drift(rowsOf(all.slice(0, 20)), recordsOf(all.slice(0, 10).concat(all.slice(500, 510))));
    expect(codes(report)).to.deep.equal(["drift_gone_rows"]);
    const gone = report!.findings.find((f) => f.code === "drift_gone_rows")!;
    expect(gone.examples[0]).to.deep.include({ read: null, index: null });
    expect(gone.examples[0]!.url).to.be.a("string");
  });

  it("does not apply below 10 present rows, and counts only present rows", () => {
    const nine = rowsOf(all.slice(0, 9));
    expect(drift(nine, [])).to.equal(null);
    const ten = rowsOf(all.slice(0, 10));
    expect(codes(drift(ten, []))).to.deep.equal(["drift_record_count", "drift_gone_rows"]);
    // Rows already missing are not the dataset's present rows: 9 present + 5 missing is below the floor.
    const missing = rowsOf(all.slice(9, 14)).map((row) => ({
      ...row,
      presence: "missing" as const,
      status: "gone" as const,
    }));
    expect(drift([...nine, ...missing], [])).to.equal(null);
  });

  it("compares the rows' own records only: new items without a value never hold a run", () => {
    // 100 priced rows; the run reads them again, priced, plus 300 new books without a price.
    const current = rowsOf(all.slice(0, 100));
    const records = recordsOf(all.slice(0, 400), (book, id, v) =>
      id === "f-price" && all.indexOf(book) >= 100 ? null : v,
    );
    expect(codes(drift(current, records))).to.deep.equal([]);
    // The same rows read without their price trip it, counted over those 100 records.
    const emptied = recordsOf(all.slice(0, 400), (_b, id, v) => (id === "f-price" ? null : v));
    const report = drift(current, emptied);
    expect(codes(report)).to.deep.equal(["drift_fill_rate"]);
    expect(report!.findings[0]).to.deep.include({ recordsAfter: 100, after: 0 });
  });

  it("ignores user columns, which runs never read", () => {
    const noted = rows.map((row) => ({ ...row, data: { ...row.data, "f-notes": "checked" } }));
    expect(codes(drift(noted, recordsOf(all)))).to.deep.equal([]);
  });

  it("counts an overridden cell with its manual value, which the run keeps", () => {
    // Every price overridden by hand: the run reading no price leaves every cell filled.
    const overridden = rows.map((row) => ({
      ...row,
      overrides: { "f-price": { value: row.data["f-price"] ?? null, evidence: [] } },
    }));
    expect(
      codes(
        drift(
          overridden,
          recordsOf(all, (_b, id, v) => (id === "f-price" ? null : v)),
        ),
      ),
    ).to.deep.equal([]);
    // A manual value that blanks a cell counts as empty before: 600 blanked by hand, the run reads none.
    const blanked = rows.map((row, i) =>
      i < 600
        ? { ...row, data: { ...row.data, "f-rating": null }, overrides: { "f-rating": { value: "One", evidence: [] } } }
        : row,
    );
    const unrated = recordsOf(all, (_b, id, v) => (id === "f-rating" ? null : v));
    // Before: 400 of 1000 filled (40%); after: the 600 overrides stay blank, the rest read nothing: 0%.
    expect(codes(drift(blanked, unrated))).to.deep.equal([]);
  });
});
