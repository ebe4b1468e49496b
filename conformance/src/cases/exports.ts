import { expect } from "chai";
import { parse } from "csv-parse/sync";
import { parquetReadObjects } from "hyparquet";
import { after, before, describe, it } from "../runner.js";
import type { Body } from "../bodies.js";
import { columnId } from "../books.js";
import type { Capability, Owner, SuiteContext } from "../context.js";
import type { BooksSite } from "../sites/index.js";
import { FeedConsumer } from "./changes.js";
import { allRows, createBooks, rowOf, runSucceeds, startSmallBooksSite } from "./rows.js";

const meta = ["_rowKey", "_status", "_presence", "_updatedAt"];

const jsonLines = (text: string): Body[] =>
  text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line));

const byRowKey = (records: ReadonlyArray<Body>): Map<string, Body> => new Map(records.map((r) => [r._rowKey, r]));

export const exportCases = (ctx: SuiteContext): void => {
  describe("exports (data out)", () => {
    let site: BooksSite;
    let owner: Owner;
    let dataset: Body;
    before(async () => {
      site = await startSmallBooksSite();
      owner = await ctx.owner(300);
      dataset = await createBooks(owner, site);
      await runSucceeds(owner, dataset.id);
    });
    after(() => site.close());

    const exportPath = () => `/v1/datasets/${dataset.id}/export`;
    /** A text export through the suite's client, so its status and content type meet the contract. */
    const exportText = async (query: Record<string, string | number | ReadonlyArray<string>>) => {
      const answer = await owner.request("GET", exportPath(), { query });
      expect(answer.status, String(answer.body)).to.equal(200);
      // The client parses JSON when it can (a one-line JSONL answer is one object; an empty one is null).
      const body = answer.body;
      return { text: typeof body === "string" ? body : body === null ? "" : JSON.stringify(body), answer };
    };
    const exportBytes = async (query: Record<string, string>) => {
      const url = new URL(exportPath(), ctx.host().url);
      for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
      const response = await fetch(url, { headers: { authorization: `Bearer ${owner.key}` } });
      expect(response.status).to.equal(200);
      return { response, bytes: await response.arrayBuffer() };
    };
    const edit = async (rowId: string, values: Body) => {
      const path = `/v1/datasets/${dataset.id}/rows/${rowId}`;
      const current = (await owner.get(path)).body;
      const answer = await owner.patch(path, {
        expectedRevisionId: current.revisionId,
        requestId: `export-${globalThis.crypto.randomUUID()}`,
        values,
      });
      expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    };
    /** A row as an export names it: meta columns, then each column's value by name. */
    const expectedRecord = (row: Body): Body => ({
      _rowKey: row.rowKey,
      _status: row.status,
      _presence: row.presence,
      _updatedAt: row.updatedAt,
      ...Object.fromEntries(dataset.columns.map((c: Body) => [c.name, row.data[c.id] ?? null])),
    });

    it("exports the current rows as JSONL keyed by column name, numbers staying numbers", async () => {
      const rows = await allRows(owner, dataset.id);
      const { text, answer } = await exportText({ format: "jsonl" });
      expect(answer.headers.get("content-type")).to.match(/^application\/jsonl/);
      expect(answer.headers.get("content-disposition")).to.include(`${dataset.id}.jsonl`);
      const records = jsonLines(text);
      expect(records).to.have.length(rows.length);
      const exported = byRowKey(records);
      for (const row of rows) expect(exported.get(row.rowKey)).to.deep.equal(expectedRecord(row));
      expect(records.every((r) => typeof r.price === "number")).to.equal(true);
      expect(Object.keys(records[0]!)).to.deep.equal([...meta, ...dataset.columns.map((c: Body) => c.name)]);
    });

    it("exports as of a sequence exactly the rows a change-feed consumer had at that sequence", async () => {
      const consumer = new FeedConsumer(owner, dataset.id, 100);
      await consumer.poll();
      const rows = await allRows(owner, dataset.id);
      const keyOf = new Map(rows.map((r) => [r.id, r.rowKey]));
      const asOf = (await owner.get(`/v1/datasets/${dataset.id}/changes`, { limit: 1 })).body.through as number;
      const consumerAt = (state: Map<string, Body>) =>
        [...state].map(([rowId, r]) => ({
          _rowKey: keyOf.get(rowId),
          _presence: r.presence,
          ...Object.fromEntries(dataset.columns.map((c: Body) => [c.name, r.data[c.id] ?? null])),
        }));
      const seenAtFirst = consumerAt(consumer.rows());

      // Later writes: an export as of the earlier sequence must not show them.
      const price = columnId(dataset, "price");
      const notes = columnId(dataset, "notes");
      await edit(rowOf(rows, site.books[0]!.slug).id, { [price]: 99.5, [notes]: "edited after" });
      await edit(rowOf(rows, site.books[1]!.slug).id, { [notes]: "also after" });

      const strip = (records: Body[]) =>
        records.map(({ _status, _updatedAt, ...rest }) => rest).sort((a, b) => (a._rowKey < b._rowKey ? -1 : 1));
      const sortByKey = (records: Body[]) => [...records].sort((a, b) => (a._rowKey < b._rowKey ? -1 : 1));
      const then = jsonLines((await exportText({ format: "jsonl", asOf })).text);
      expect(strip(then)).to.deep.equal(sortByKey(seenAtFirst));
      // Every row was created by the first run and untouched by then.
      expect(new Set(then.map((r) => r._status))).to.deep.equal(new Set(["new"]));

      await consumer.poll();
      const last = (await owner.get(`/v1/datasets/${dataset.id}/changes`, { after: asOf })).body.through as number;
      expect(last).to.equal(asOf + 2);
      const now = jsonLines((await exportText({ format: "jsonl", asOf: last })).text);
      expect(strip(now)).to.deep.equal(sortByKey(consumerAt(consumer.rows())));
      const edited = now.find((r) => r._rowKey === rowOf(rows, site.books[0]!.slug).rowKey);
      expect(edited).to.include({ price: 99.5, notes: "edited after", _status: "changed" });

      // Before the first revision there was nothing to export.
      expect(jsonLines((await exportText({ format: "jsonl", asOf: 0 })).text)).to.deep.equal([]);
    });

    it("writes CSV with a header, quotes commas, quotes and line breaks, and defuses formulas", async () => {
      const rows = await allRows(owner, dataset.id);
      const notes = columnId(dataset, "notes");
      const price = columnId(dataset, "price");
      const tricky: Record<number, string> = {
        10: 'a, "quoted"\nsecond line',
        11: '=HYPERLINK("http://example.com")',
        12: "@SUM(1)",
        13: "+1",
        14: "-2 left",
      };
      for (const [index, text] of Object.entries(tricky)) {
        await edit(rowOf(rows, site.books[Number(index)]!.slug).id, { [notes]: text });
      }
      await edit(rowOf(rows, site.books[15]!.slug).id, { [price]: -3 });

      const { text, answer } = await exportText({ format: "csv" });
      expect(answer.headers.get("content-type")).to.match(/^text\/csv/);
      expect(text.split("\n")[0]).to.equal([...meta, ...dataset.columns.map((c: Body) => c.name)].join(","));
      const records = byRowKey(parse(text, { columns: true }) as Body[]);
      expect(records.size).to.equal(rows.length);
      const cell = (index: number, column: string) =>
        records.get(rowOf(rows, site.books[index]!.slug).rowKey)?.[column];
      expect(cell(10, "notes")).to.equal('a, "quoted"\nsecond line');
      expect(cell(11, "notes")).to.equal(`'=HYPERLINK("http://example.com")`);
      expect(cell(12, "notes")).to.equal("'@SUM(1)");
      expect(cell(13, "notes")).to.equal("'+1");
      expect(cell(14, "notes")).to.equal("'-2 left");
      // A negative number is a number, not a formula.
      expect(cell(15, "price")).to.equal("-3");
    });

    it("writes Parquet that a Parquet reader reads back with the same typed values as JSONL", async () => {
      const { response, bytes } = await exportBytes({ format: "parquet" });
      expect(response.headers.get("content-type")).to.equal("application/vnd.apache.parquet");
      const fromParquet = (await parquetReadObjects({ file: bytes })) as Body[];
      const fromJsonl = jsonLines((await exportText({ format: "jsonl" })).text);
      expect(fromParquet).to.have.length(fromJsonl.length);
      const jsonl = byRowKey(fromJsonl);
      for (const record of fromParquet) expect(record).to.deep.equal(jsonl.get(record._rowKey));
      expect(fromParquet.every((r) => typeof r.price === "number")).to.equal(true);
    });

    it("filters by status, and names the parameter it cannot read", async () => {
      const rows = await allRows(owner, dataset.id);
      const changed = rows.filter((r) => r.status === "changed").length;
      const filtered = jsonLines((await exportText({ format: "jsonl", status: "changed" })).text);
      expect(filtered).to.have.length(changed);
      expect(jsonLines((await exportText({ format: "jsonl", status: "gone" })).text)).to.deep.equal([]);

      const badFormat = await owner.get(exportPath(), { format: "xml" });
      expect(badFormat.status).to.equal(400);
      expect(badFormat.body.error.details.map((d: Body) => d.path)).to.include("format");
      const badAsOf = await owner.get(exportPath(), { asOf: "1e3" });
      expect(badAsOf.status).to.equal(400);
      expect(badAsOf.body.error.details.map((d: Body) => d.path)).to.include("asOf");
      const last = (await owner.get(`/v1/datasets/${dataset.id}/changes`, { limit: 1 })).body.through as number;
      const future = await owner.get(exportPath(), { asOf: last + 1 });
      expect(future.status).to.equal(422);
      expect(future.body.error.details[0].path).to.equal("asOf");
    });

    it("answers 404 for another owner's dataset", async () => {
      const stranger = await ctx.owner(0);
      const answer = await stranger.get(exportPath(), { format: "csv" });
      expect(answer.status).to.equal(404);
      expect(answer.body.error.code).to.equal("not_found");
    });
  });
};

export const exportsCapability: Capability = {
  name: "exports",
  register: exportCases,
};
