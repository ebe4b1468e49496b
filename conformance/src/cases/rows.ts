import { expect } from "chai";
import { after, before, describe, it } from "../runner.js";
import type { Body } from "../bodies.js";
import { booksDataset, columnId, runToEnd } from "../books.js";
import type { Capability, Owner, SuiteContext } from "../context.js";
import { type BooksSite, loadBooks, startBooksSite } from "../sites/index.js";

/** A 60-book, 3-page catalogue: every row rule shows on it, and a run costs 3 credits. */
export const startSmallBooksSite = (): Promise<BooksSite> => startBooksSite({ books: loadBooks().slice(0, 60) });

/** Creates a dataset, expecting 201; the dataset. */
export const createDataset = async (owner: Owner, body: Body): Promise<Body> => {
  const answer = await owner.post("/v1/datasets", body);
  expect(answer.status, JSON.stringify(answer.body)).to.equal(201);
  return answer.body.dataset;
};

export const createBooks = (owner: Owner, site: BooksSite): Promise<Body> => createDataset(owner, booksDataset(site));

export const runSucceeds = async (owner: Owner, datasetId: string): Promise<Body> => {
  const run = await runToEnd(owner, datasetId);
  expect(run.status, JSON.stringify(run)).to.equal("succeeded");
  return run;
};

/** Every current row, following nextCursor to the end. */
export const allRows = async (owner: Owner, datasetId: string, limit = 500): Promise<Body[]> => {
  const rows: Body[] = [];
  let cursor: string | null = null;
  do {
    const answer = await owner.get(`/v1/datasets/${datasetId}/rows`, { limit, ...(cursor ? { cursor } : {}) });
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    rows.push(...answer.body.data);
    cursor = answer.body.nextCursor;
  } while (cursor);
  return rows;
};

/** The row of a book: its identity is the book's absolute link. */
export const rowOf = (rows: ReadonlyArray<Body>, slug: string): Body => {
  const row = rows.find((r) => r.rowKey.includes(`/${slug}/`));
  if (!row) throw new Error(`No row for ${slug}`);
  return row;
};

const newestFirst = (a: Body, b: Body) =>
  a.updatedAt === b.updatedAt ? (a.id < b.id ? 1 : -1) : a.updatedAt < b.updatedAt ? 1 : -1;

export const rowCases = (ctx: SuiteContext): void => {
  describe("rows (endpoints 5 and 6)", () => {
    let site: BooksSite;
    let owner: Owner;
    let dataset: Body;
    let firstRunAt: string;
    before(async () => {
      site = await startSmallBooksSite();
      owner = await ctx.owner(100);
      dataset = await createBooks(owner, site);
      await runSucceeds(owner, dataset.id);
      firstRunAt = (await allRows(owner, dataset.id))[0]!.updatedAt;
      // A second run: one price changes and one book goes, so statuses and updatedAt differ.
      site.setPrice(site.books[5]!.book_id, "£3.33");
      site.removeBook(site.books[7]!.book_id);
      await runSucceeds(owner, dataset.id);
    });
    after(() => site.close());
    const rowsPath = () => `/v1/datasets/${dataset.id}/rows`;

    it("lists every row once, updatedAt desc then id desc, over keyset pages of any size", async () => {
      for (const limit of [500, 7, 1]) {
        const rows = await allRows(owner, dataset.id, limit);
        expect(rows).to.have.length(60);
        expect(new Set(rows.map((r) => r.id)).size).to.equal(60);
        expect(rows).to.deep.equal([...rows].sort(newestFirst));
      }
      const page = await owner.get(rowsPath());
      expect(page.body.data).to.have.length(60);
      expect(page.body.nextCursor).to.equal(null);
    });

    it("shows rows as DatasetRow: data by Field id (user columns null), status, presence", async () => {
      const rows = await allRows(owner, dataset.id);
      const changed = rowOf(rows, site.books[5]!.slug);
      const gone = rowOf(rows, loadBooks()[7]!.slug);
      expect(Object.keys(changed).sort()).to.deep.equal(
        [
          "id",
          "rowKey",
          "identity",
          "data",
          "revisionId",
          "presence",
          "missingReasons",
          "status",
          "firstSeenRunId",
          "lastSeenRunId",
          "sourceUrl",
          "observedAt",
          "updatedAt",
        ].sort(),
      );
      expect(Object.keys(changed.data).sort()).to.deep.equal(dataset.columns.map((c: Body) => c.id).sort());
      expect(changed.data[columnId(dataset, "price")]).to.equal(3.33);
      expect(changed.data[columnId(dataset, "notes")]).to.equal(null);
      expect(changed).to.include({ status: "changed", presence: "present", identity: null });
      expect(gone).to.include({ status: "gone", presence: "missing" });
      // The two changed rows were updated by the second run: they come first.
      expect(
        rows
          .slice(0, 2)
          .map((r) => r.id)
          .sort(),
      ).to.deep.equal([changed.id, gone.id].sort());
    });

    it("filters by status, repeatable, and by since (inclusive)", async () => {
      const only = async (query: Record<string, string | number | string[]>) => {
        const answer = await owner.get(rowsPath(), { limit: 500, ...query });
        expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
        return answer.body.data as Body[];
      };
      expect((await only({ status: "gone" })).map((r) => r.status)).to.deep.equal(["gone"]);
      expect((await only({ status: "changed" })).map((r) => r.status)).to.deep.equal(["changed"]);
      const several = await only({ status: ["gone", "changed"] });
      expect(several.map((r) => r.status).sort()).to.deep.equal(["changed", "gone"]);
      expect(await only({ status: "new" })).to.have.length(0);
      const newest = (await only({}))[0]!.updatedAt;
      expect(await only({ since: newest })).to.have.length(2);
      expect(await only({ since: firstRunAt })).to.have.length(60);
      expect(await only({ since: new Date(Date.parse(newest) + 1).toISOString() })).to.have.length(0);
      // Another offset naming the same instant is the same instant.
      const shifted = new Date(Date.parse(newest) + 2 * 3600_000).toISOString().replace("Z", "+02:00");
      expect(await only({ since: shifted })).to.have.length(2);
    });

    it("refuses bad queries with 400: limit outside 1-500, repeated status, unknown status, bad since", async () => {
      for (const query of [
        { limit: 0 },
        { limit: 501 },
        { limit: "ten" },
        { status: ["gone", "gone"] },
        { status: "deleted" },
        { since: "yesterday" },
        { limt: 5 },
      ] as Array<Record<string, string | number | string[]>>) {
        const answer = await owner.get(rowsPath(), query);
        expect(answer.status, JSON.stringify(query)).to.equal(400);
        expect(answer.body.error.code).to.equal("bad_request");
      }
      expect((await owner.get(rowsPath(), { limit: 500 })).status).to.equal(200);
      expect((await owner.get(rowsPath(), { limit: 1 })).status).to.equal(200);
    });

    it("refuses tampered cursors and cursors of another list with 400", async () => {
      const first = await owner.get(rowsPath(), { limit: 5 });
      const cursor: string = first.body.nextCursor;
      const [body = "", sum = ""] = cursor.split(".");
      const other = await createBooks(owner, site);
      const datasets = await owner.get("/v1/datasets", { limit: 1 });
      const foreign: string[] = [`${body.slice(0, -3)}xyz.${sum}`, `${body}.${sum}x`, "not-a-cursor"];
      if (datasets.body.nextCursor) foreign.push(datasets.body.nextCursor);
      for (const bad of foreign) {
        const answer = await owner.get(rowsPath(), { cursor: bad });
        expect(answer.status, bad).to.equal(400);
      }
      // A cursor of this dataset's rows is refused on another dataset's rows.
      expect((await owner.get(`/v1/datasets/${other.id}/rows`, { cursor })).status).to.equal(400);
      const next = await owner.get(rowsPath(), { limit: 5, cursor });
      expect(next.status).to.equal(200);
      expect(next.body.data[0].id).to.not.equal(first.body.data[0].id);
    });

    it("shows one row with its evidence, overrides and the observations its evidence cites", async () => {
      const listed = rowOf(await allRows(owner, dataset.id), site.books[5]!.slug);
      const answer = await owner.get(`${rowsPath()}/${listed.id}`);
      expect(answer.status).to.equal(200);
      const detail = answer.body;
      const { evidence: _e, overrides, observations, datasetId, ...rest } = detail;
      expect(rest).to.deep.equal(listed);
      expect(datasetId).to.equal(dataset.id);
      expect(overrides).to.deep.equal({});
      const collected = dataset.columns.filter((c: Body) => c.ownership === "collected").map((c: Body) => c.id);
      expect(Object.keys(detail.evidence).sort()).to.deep.equal(collected.sort());
      const cited = new Set<string>();
      for (const refs of Object.values(detail.evidence) as Body[][])
        for (const ref of refs) cited.add(ref.observationId);
      expect(observations.map((o: Body) => o.id).sort()).to.deep.equal([...cited].sort());
      for (const refs of Object.values(detail.evidence) as Body[][]) {
        for (const ref of refs) {
          const observation = observations.find((o: Body) => o.id === ref.observationId);
          expect(observation.sourceUrl).to.equal(listed.sourceUrl);
          const entry = observation.entries.find((e: Body) => e.id === ref.entryId);
          expect(entry, ref.entryId).to.not.equal(undefined);
          expect(entry.excerpt).to.contain("£3.33");
        }
      }
    });

    it("tags each page: the tag again answers 304 with no body; a query, a run or an edit changes the tag", async () => {
      const tagged = async (query: Record<string, string | number>, tag?: string) =>
        owner.request("GET", rowsPath(), { query, ...(tag ? { headers: { "if-none-match": tag } } : {}) });
      const first = await tagged({ limit: 5 });
      const tag = first.headers.get("etag")!;
      expect(tag).to.match(/^W\/".+"$/);
      const again = await tagged({ limit: 5 }, tag);
      expect(again.status).to.equal(304);
      expect(again.body).to.equal(null);
      expect(again.headers.get("etag")).to.equal(tag);
      const otherQuery = await tagged({ limit: 6 }, tag);
      expect(otherQuery.status).to.equal(200);
      expect(otherQuery.headers.get("etag")).to.not.equal(tag);
      // A run with nothing changed on the site still moves every row's lastSeenRunId: a new tag.
      await runSucceeds(owner, dataset.id);
      const afterRun = await tagged({ limit: 5 }, tag);
      expect(afterRun.status).to.equal(200);
      const runTag = afterRun.headers.get("etag")!;
      expect(runTag).to.not.equal(tag);
      // Read again unchanged, the page is the same (the host keeps its bytes per tag); after the edit, never.
      expect((await tagged({ limit: 5 })).body).to.deep.equal(afterRun.body);
      const row = afterRun.body.data.find((r: Body) => r.presence === "present");
      const edit = await owner.patch(`${rowsPath()}/${row.id}`, {
        expectedRevisionId: row.revisionId,
        requestId: globalThis.crypto.randomUUID(),
        values: { [columnId(dataset, "title")]: "Edited title" },
      });
      expect(edit.status, JSON.stringify(edit.body)).to.equal(200);
      const afterEdit = await tagged({ limit: 5 }, runTag);
      expect(afterEdit.status).to.equal(200);
      expect(afterEdit.headers.get("etag")).to.not.equal(runTag);
      const edited = afterEdit.body.data.find((r: Body) => r.id === row.id);
      expect(edited.data[columnId(dataset, "title")]).to.equal("Edited title");
    });

    it("answers 404 for unknown, non-UUID and other owners' rows and datasets", async () => {
      const row = (await owner.get(rowsPath(), { limit: 1 })).body.data[0];
      const stranger = await ctx.owner(0);
      const unknown = globalThis.crypto.randomUUID();
      for (const [client, path] of [
        [owner, `${rowsPath()}/${unknown}`],
        [owner, `${rowsPath()}/not-a-uuid`],
        [owner, `/v1/datasets/${unknown}/rows`],
        [owner, `/v1/datasets/${unknown}/rows/${row.id}`],
        [stranger, rowsPath()],
        [stranger, `${rowsPath()}/${row.id}`],
      ] as const) {
        const answer = await client.get(path);
        expect(answer.status, path).to.equal(404);
        expect(answer.body.error.code).to.equal("not_found");
      }
    });
  });
};

export const rowsCapability: Capability = {
  name: "rows",
  register: rowCases,
};
