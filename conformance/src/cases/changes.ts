import { expect } from "chai";
import { after, before, describe, it } from "../runner.js";
import type { Body } from "../bodies.js";
import { columnId } from "../books.js";
import type { Capability, Owner, SuiteContext } from "../context.js";
import type { BooksSite } from "../sites/index.js";
import { allRows, createBooks, rowOf, runSucceeds, startSmallBooksSite } from "./rows.js";

/**
 * What a revision fixes about its row. Evidence is left out on purpose: a run that finds a row
 * unchanged writes no revision but does point the row's evidence (and its overrides' snapshot
 * evidence) at the new run's observation.
 */
const currentState = (r: Body): Body => ({
  revisionId: r.revisionId ?? r.id,
  data: r.data,
  presence: r.presence,
  missingReasons: r.missingReasons,
  overrides: Object.fromEntries(
    Object.entries(r.overrides as Record<string, Body>).map(([id, o]) => [
      id,
      { value: o.value, missingReason: o.missingReason },
    ]),
  ),
});

const requestId = () => `edit-${globalThis.crypto.randomUUID()}`;

/** A consumer of the feed: polls windows as SPEC.md rule 3 says, keeping only what the feed told it. */
export class FeedConsumer {
  readonly revisions: Body[] = [];
  readonly schemaVersions = new Set<number>();
  readonly observationIds = new Set<string>();
  private through: number | null = null;

  constructor(
    private readonly owner: Owner,
    private readonly datasetId: string,
    private readonly limit: number,
  ) {}

  /** Drains one window: first page fixes `through`, then after=nextAfter until nextAfter is null. */
  async poll(): Promise<void> {
    let after: number | null = this.through;
    let through: number | null = null;
    for (;;) {
      const query: Record<string, number> = { limit: this.limit };
      if (after !== null) query.after = after;
      if (through !== null) query.through = through;
      const page = await this.owner.get(`/v1/datasets/${this.datasetId}/changes`, query);
      expect(page.status, JSON.stringify(page.body)).to.equal(200);
      if (through !== null) expect(page.body.through).to.equal(through);
      through = page.body.through;
      for (const s of page.body.schemas) this.schemaVersions.add(s.version);
      for (const o of page.body.observations) this.observationIds.add(o.id);
      for (const revision of page.body.data) {
        expect(this.schemaVersions.has(revision.schemaVersion)).to.equal(true);
        this.revisions.push(revision);
      }
      if (page.body.nextAfter === null) break;
      after = page.body.nextAfter;
    }
    this.through = through;
  }

  /** The current rows, rebuilt from revisions alone. */
  rows(): Map<string, Body> {
    const rows = new Map<string, Body>();
    for (const r of this.revisions) rows.set(r.rowId, currentState(r));
    return rows;
  }
}

export const changeCases = (ctx: SuiteContext): void => {
  describe("the change feed (endpoint 8)", () => {
    let site: BooksSite;
    let owner: Owner;
    let dataset: Body;
    let price: string;
    let notes: string;
    before(async () => {
      site = await startSmallBooksSite();
      owner = await ctx.owner(300);
      dataset = await createBooks(owner, site);
      price = columnId(dataset, "price");
      notes = columnId(dataset, "notes");
      await runSucceeds(owner, dataset.id);
    });
    after(() => site.close());
    const changesPath = () => `/v1/datasets/${dataset.id}/changes`;
    const changes = async (query: Record<string, string | number> = {}) => {
      const answer = await owner.get(changesPath(), query);
      expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
      return answer.body;
    };
    const rowPath = (rowId: string) => `/v1/datasets/${dataset.id}/rows/${rowId}`;
    const editCell = async (row: Body, fieldId: string, value: string | number): Promise<Body> => {
      const current = (await owner.get(rowPath(row.id))).body;
      const answer = await owner.patch(rowPath(row.id), {
        expectedRevisionId: current.revisionId,
        requestId: requestId(),
        values: { [fieldId]: value },
      });
      expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
      return answer.body;
    };
    const editNotes = (row: Body, text: string) => editCell(row, notes, text);

    it("numbers every revision with a gapless sequence and pages a fixed window with after=nextAfter", async () => {
      const first = await changes({ limit: 7 });
      const through: number = first.through;
      expect(through).to.be.at.least(60);
      expect(first.data.map((r: Body) => r.sequence)).to.deep.equal([1, 2, 3, 4, 5, 6, 7]);
      expect(first.nextAfter).to.equal(7);
      // Writes during paging land after the window: its pages never show them.
      // A book no other case of this file edits, so their expectations never depend on this one.
      const row = rowOf(await allRows(owner, dataset.id), site.books[30]!.slug);
      await editNotes(row, "written while paging");
      const sequences: number[] = first.data.map((r: Body) => r.sequence);
      let after = first.nextAfter;
      while (after !== null) {
        const page = await changes({ after, through, limit: 7 });
        expect(page.through).to.equal(through);
        sequences.push(...page.data.map((r: Body) => r.sequence));
        after = page.nextAfter;
      }
      expect(sequences).to.deep.equal(Array.from({ length: through }, (_, i) => i + 1));
      // Drained: the next poll starts at the previous through and sees only the new revision.
      const next = await changes({ after: through });
      expect(next.through).to.equal(through + 1);
      expect(next.data.map((r: Body) => r.sequence)).to.deep.equal([through + 1]);
      expect(next.data[0]).to.include({ origin: "user", rowId: row.id });
      expect(next.nextAfter).to.equal(null);
      const empty = await changes({ after: through + 1 });
      expect(empty).to.deep.include({ data: [], through: through + 1, nextAfter: null });
    });

    it("carries before and beforeOverrides, the historical schemas and the cited observations", async () => {
      const row = rowOf(await allRows(owner, dataset.id), site.books[2]!.slug);
      const current = (await owner.get(rowPath(row.id))).body;
      const edit = await owner.patch(rowPath(row.id), {
        expectedRevisionId: current.revisionId,
        requestId: requestId(),
        values: { [price]: 0.5 },
      });
      expect(edit.status).to.equal(200);
      const columns = [...dataset.columns, { name: "shelf", type: "string", ownership: "user" }];
      const evolved = await owner.patch(`/v1/datasets/${dataset.id}`, { expectedSchemaVersion: 1, columns });
      expect(evolved.status, JSON.stringify(evolved.body)).to.equal(200);
      const shelf = columnId(evolved.body.dataset, "shelf");
      const second = await owner.patch(rowPath(row.id), {
        expectedRevisionId: edit.body.id,
        requestId: requestId(),
        values: { [shelf]: "B2", [price]: 0.75 },
      });
      expect(second.status, JSON.stringify(second.body)).to.equal(200);
      expect(second.body.schemaVersion).to.equal(2);

      const timeline = await changes({ rowId: row.id, limit: 100 });
      const [created, ...rest] = timeline.data;
      expect(created).to.include({ kind: "created", origin: "collection", before: null });
      expect(created).to.not.have.property("beforeOverrides");
      const firstEdit = rest.find((r: Body) => r.id === edit.body.id);
      expect(firstEdit.before).to.deep.equal(current.data);
      expect(firstEdit.beforeOverrides).to.deep.equal({});
      const secondEdit = rest.find((r: Body) => r.id === second.body.id);
      expect(secondEdit.before).to.deep.equal(edit.body.data);
      expect(secondEdit.beforeOverrides).to.deep.equal(edit.body.overrides);
      expect(secondEdit.overrides[price].value).to.equal(row.data[price]);

      expect(timeline.schemas.map((s: Body) => s.version).sort()).to.deep.equal([1, 2]);
      const v1 = timeline.schemas.find((s: Body) => s.version === 1);
      const v2 = timeline.schemas.find((s: Body) => s.version === 2);
      expect(v1.fields.map((f: Body) => f.id)).to.deep.equal(dataset.columns.map((c: Body) => c.id));
      expect(v2.fields.map((f: Body) => f.name)).to.include("shelf");
      expect(v1.datasetId).to.equal(dataset.id);
      const cited = new Set<string>();
      for (const r of timeline.data) {
        for (const refs of Object.values(r.evidence) as Body[][]) for (const ref of refs) cited.add(ref.observationId);
        for (const o of Object.values(r.overrides) as Body[])
          for (const ref of o.evidence) cited.add(ref.observationId);
      }
      expect(timeline.observations.map((o: Body) => o.id).sort()).to.deep.equal([...cited].sort());
      // Only the schemas the page's revisions were written under.
      const onlyFirst = await changes({ rowId: row.id, limit: 1 });
      expect(onlyFirst.schemas.map((s: Body) => s.version)).to.deep.equal([1]);
    });

    it("selects a row timeline with rowId and a cell timeline with rowId + fieldId", async () => {
      const rows = await allRows(owner, dataset.id);
      const row = rowOf(rows, site.books[4]!.slug);
      const other = rowOf(rows, site.books[5]!.slug);
      await editNotes(row, "n1");
      await editNotes(other, "elsewhere");
      const priceEdit = await owner.patch(rowPath(row.id), {
        expectedRevisionId: (await owner.get(rowPath(row.id))).body.revisionId,
        requestId: requestId(),
        values: { [price]: 4 },
      });
      expect(priceEdit.status).to.equal(200);
      await editNotes(row, "n2");

      const timeline = await changes({ rowId: row.id, limit: 100 });
      expect(timeline.data.every((r: Body) => r.rowId === row.id)).to.equal(true);
      expect(timeline.data.map((r: Body) => r.kind)).to.deep.equal(["created", "updated", "updated", "updated"]);
      const sequences = timeline.data.map((r: Body) => r.sequence);
      expect(sequences).to.deep.equal([...sequences].sort((a, b) => a - b));
      for (let i = 1; i < timeline.data.length; i++) {
        expect(timeline.data[i].previousRevisionId).to.equal(timeline.data[i - 1].id);
      }
      const cell = await changes({ rowId: row.id, fieldId: notes, limit: 100 });
      expect(cell.data.map((r: Body) => r.data[notes])).to.deep.equal(["n1", "n2"]);
      const priceCell = await changes({ rowId: row.id, fieldId: price, limit: 100 });
      expect(priceCell.data.map((r: Body) => r.data[price])).to.deep.equal([row.data[price], 4]);
      // Paging a timeline: nextAfter is the last sequence shown.
      const paged = await changes({ rowId: row.id, limit: 2 });
      expect(paged.nextAfter).to.equal(paged.data[1].sequence);
      const rest = await changes({ rowId: row.id, limit: 2, after: paged.nextAfter, through: paged.through });
      expect([...paged.data, ...rest.data].map((r: Body) => r.id)).to.deep.equal(timeline.data.map((r: Body) => r.id));
      expect(rest.nextAfter).to.equal(null);
    });

    it("selects the revisions that changed one column across rows with changedFieldId, paged like the feed", async () => {
      const rows = await allRows(owner, dataset.id);
      const [one, two] = [rowOf(rows, site.books[6]!.slug), rowOf(rows, site.books[7]!.slug)];
      const { through: before } = await changes({ limit: 1 });
      await editNotes(one, "column 1");
      await editNotes(two, "column 2");
      const { through } = await changes({ limit: 1 });
      const feed = await changes({ after: before, limit: 100 });
      expect(feed.data).to.have.length(2);
      // A price edit in between: the notes column's changes skip it.
      await editCell(one, price, 5);
      await editNotes(one, "column 3");
      const column = await changes({ changedFieldId: notes, after: before, limit: 100 });
      expect(column.data.map((r: Body) => r.data[notes])).to.deep.equal(["column 1", "column 2", "column 3"]);
      expect(column.data.every((r: Body) => r.changedFieldIds.includes(notes))).to.equal(true);
      // Paged: nextAfter is the last sequence shown, and the window is the feed's.
      const first = await changes({ changedFieldId: notes, after: before, limit: 2 });
      expect(first.nextAfter).to.equal(first.data[1].sequence);
      const rest = await changes({ changedFieldId: notes, after: first.nextAfter, through: first.through, limit: 2 });
      expect(rest.data.map((r: Body) => r.data[notes])).to.deep.equal(["column 3"]);
      expect(rest.nextAfter).to.equal(null);
      expect((await changes({ changedFieldId: price, after: through, limit: 100 })).data).to.have.length(1);
      // One field at a time, and a field of this dataset.
      const both = await owner.get(changesPath(), { rowId: one.id, fieldId: notes, changedFieldId: notes });
      expect(both.status).to.equal(400);
      const unknown = await owner.get(changesPath(), { changedFieldId: globalThis.crypto.randomUUID() });
      expect(unknown.status).to.equal(422);
      expect(unknown.body.error.details[0].path).to.equal("changedFieldId");
      // Not an id: 400 saying what an id is, as for rowId and fieldId, not reciting the parameter's documentation.
      const malformed = await owner.get(changesPath(), { changedFieldId: "price" });
      expect(malformed.status).to.equal(400);
      expect(malformed.body.error.message).to.equal(
        'Query parameter "changedFieldId" Expected a Universally Unique Identifier, actual "price".',
      );
    });

    it("refuses malformed parameters with 400 and inconsistent windows with 422", async () => {
      const { through } = await changes({ limit: 1 });
      const rowId = (await allRows(owner, dataset.id))[0]!.id;
      for (const query of [
        { limit: 0 },
        { limit: 101 },
        { after: -1 },
        { after: "ten" },
        { through: 1.5 },
        { rowId: "not-a-uuid" },
        { fieldId: notes },
        { rowId, fieldId: "nope" },
        { cursor: "x" },
      ] as Array<Record<string, string | number>>) {
        const answer = await owner.get(changesPath(), query);
        expect(answer.status, JSON.stringify(query)).to.equal(400);
        expect(answer.body.error.code).to.equal("bad_request");
      }
      const repeated = await owner.request("GET", `${changesPath()}?after=1&after=2`);
      expect(repeated.status).to.equal(400);
      for (const query of [
        { after: 5, through: 4 },
        { after: through + 1 },
        { through: through + 1 },
        { after: 0, through: through + 10 },
        { rowId, fieldId: globalThis.crypto.randomUUID() },
      ] as Array<Record<string, string | number>>) {
        const answer = await owner.get(changesPath(), query);
        expect(answer.status, JSON.stringify(query)).to.equal(422);
        expect(answer.body.error.code).to.equal("validation_error");
      }
      expect((await owner.get(changesPath(), { limit: 100 })).status).to.equal(200);
      expect((await owner.get(changesPath(), { after: through, through })).body.data).to.deep.equal([]);
    });

    it("answers 404 for unknown datasets and rows and for another owner's feed", async () => {
      const stranger = await ctx.owner(0);
      expect((await stranger.get(changesPath())).status).to.equal(404);
      expect((await owner.get(`/v1/datasets/${globalThis.crypto.randomUUID()}/changes`)).status).to.equal(404);
      expect((await owner.get(changesPath(), { rowId: globalThis.crypto.randomUUID() })).status).to.equal(404);
    });

    it("is complete and ordered: a consumer polling during runs and edits rebuilds the exact current rows", async () => {
      const consumer = new FeedConsumer(owner, dataset.id, 9);
      let writing = true;
      const polling = (async () => {
        while (writing) {
          await consumer.poll();
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      })();
      try {
        const books = site.books;
        site.setPrice(books[11]!.book_id, "£11.11");
        site.removeBook(books[12]!.book_id);
        await runSucceeds(owner, dataset.id);
        const rows = await allRows(owner, dataset.id);
        const target = rowOf(rows, books[11]!.slug);
        const edits = [
          editNotes(rowOf(rows, books[13]!.slug), "concurrent a"),
          editNotes(rowOf(rows, books[14]!.slug), "concurrent b"),
          (async () => {
            const current = (await owner.get(rowPath(target.id))).body;
            const answer = await owner.patch(rowPath(target.id), {
              expectedRevisionId: current.revisionId,
              requestId: requestId(),
              values: { [price]: 123 },
            });
            expect(answer.status).to.equal(200);
          })(),
        ];
        site.setPrice(books[11]!.book_id, "£22.22");
        site.restoreBook(books[12]!.book_id);
        site.setPrice(books[15]!.book_id, "£15.15");
        await Promise.all([...edits, runSucceeds(owner, dataset.id)]);
        site.removeBook(books[16]!.book_id);
        await runSucceeds(owner, dataset.id);
        const current = (await owner.get(rowPath(target.id))).body;
        const reset = await owner.patch(rowPath(target.id), {
          expectedRevisionId: current.revisionId,
          requestId: requestId(),
          resetFieldIds: [price],
        });
        expect(reset.status, JSON.stringify(reset.body)).to.equal(200);
        expect(reset.body.data[price]).to.equal(22.22);
      } finally {
        writing = false;
        await polling;
      }
      await consumer.poll();

      const sequences = consumer.revisions.map((r) => r.sequence);
      expect(sequences).to.deep.equal(Array.from({ length: sequences.length }, (_, i) => i + 1));
      const rebuilt = consumer.rows();
      const actual = await allRows(owner, dataset.id);
      expect(rebuilt.size).to.equal(actual.length);
      for (const row of actual) {
        const detail = (await owner.get(rowPath(row.id))).body;
        expect(rebuilt.get(row.id), row.rowKey).to.deep.equal(currentState(detail));
      }
      for (const r of consumer.revisions) {
        for (const refs of Object.values(r.evidence) as Body[][]) {
          for (const ref of refs) expect(consumer.observationIds.has(ref.observationId)).to.equal(true);
        }
      }
    });
  });
  describe("the change feed after a run that changed one record", () => {
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

    it("cites that record's entry alone: the run stores what its outcome needs, not the page again", async () => {
      const consumer = new FeedConsumer(owner, dataset.id, 100);
      await consumer.poll();
      const through = consumer.revisions.length;
      site.setPrice(site.books[3]!.book_id, 71.5);
      await runSucceeds(owner, dataset.id);

      const answer = await owner.get(`/v1/datasets/${dataset.id}/changes`, { after: through, limit: 100 });
      expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
      const [revision, ...others] = answer.body.data;
      expect(others, "one record changed, one revision").to.deep.equal([]);
      expect(revision.data[columnId(dataset, "price")]).to.equal(71.5);
      const cited = new Set<string>();
      for (const refs of Object.values(revision.evidence) as Body[][]) for (const ref of refs) cited.add(ref.entryId);
      expect(answer.body.observations).to.have.length(1);
      const [observation] = answer.body.observations;
      expect(observation.entries.map((e: Body) => e.id).sort()).to.deep.equal([...cited].sort());
      expect(observation.entries[0].excerpt).to.include("71.50");
    });
  });
};

export const changesCapability: Capability = {
  name: "changes",
  register: changeCases,
};
