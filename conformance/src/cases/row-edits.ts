import { expect } from "chai";
import { after, before, describe, it } from "../runner.js";
import type { Body } from "../bodies.js";
import { booksDataset, columnId } from "../books.js";
import type { Capability, Owner, SuiteContext } from "../context.js";
import type { BooksSite } from "../sites/index.js";
import { allRows, createBooks, rowOf, runSucceeds, startSmallBooksSite } from "./rows.js";

const requestId = () => `edit-${globalThis.crypto.randomUUID()}`;

export const rowEditCases = (ctx: SuiteContext): void => {
  describe("row edits (endpoint 7)", () => {
    let site: BooksSite;
    let owner: Owner;
    let dataset: Body;
    let price: string;
    let notes: string;
    let title: string;
    before(async () => {
      site = await startSmallBooksSite();
      owner = await ctx.owner(200);
      dataset = await createBooks(owner, site);
      [price, notes, title] = ["price", "notes", "title"].map((n) => columnId(dataset, n)) as [string, string, string];
      await runSucceeds(owner, dataset.id);
    });
    after(() => site.close());
    const rowPath = (rowId: string) => `/v1/datasets/${dataset.id}/rows/${rowId}`;
    const readRow = async (rowId: string): Promise<Body> => {
      const answer = await owner.get(rowPath(rowId));
      expect(answer.status).to.equal(200);
      return answer.body;
    };
    const rowOfBook = async (index: number): Promise<Body> =>
      readRow(rowOf(await allRows(owner, dataset.id), site.books[index]!.slug).id);
    const lastSequence = async (): Promise<number> =>
      (await owner.get(`/v1/datasets/${dataset.id}/changes`, { limit: 1 })).body.through;
    const edit = (row: Body, body: Body) =>
      owner.patch(rowPath(row.id), { expectedRevisionId: row.revisionId, requestId: requestId(), ...body });

    it("overrides a collected cell: a user revision, the source snapshot kept in overrides", async () => {
      const row = await rowOfBook(0);
      const source = row.data[price];
      const id = requestId();
      const answer = await owner.patch(rowPath(row.id), {
        expectedRevisionId: row.revisionId,
        requestId: id,
        values: { [price]: 1.5, [notes]: "signed copy" },
      });
      expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
      const revision = answer.body;
      expect(revision).to.include({
        datasetId: dataset.id,
        rowId: row.id,
        origin: "user",
        kind: "updated",
        requestId: id,
        previousRevisionId: row.revisionId,
        runId: null,
        schemaVersion: dataset.schemaVersion,
        presence: "present",
      });
      expect(revision.actorId).to.match(/^[0-9a-f-]{36}$/);
      expect(revision.requestHash).to.be.a("string").and.not.equal("");
      expect(revision.sequence).to.equal(await lastSequence());
      expect(revision.changedFieldIds).to.have.members([price, notes]).and.have.length(2);
      expect(revision.data).to.deep.equal({ ...row.data, [price]: 1.5, [notes]: "signed copy" });
      expect(revision.overrides).to.deep.equal({ [price]: { value: source, evidence: row.evidence[price] } });
      expect(revision).to.not.have.property("before");

      const after = await readRow(row.id);
      expect(after.revisionId).to.equal(revision.id);
      expect(after.data[price]).to.equal(1.5);
      expect(after.data[notes]).to.equal("signed copy");
      expect(after.overrides).to.deep.equal(revision.overrides);
      expect(after.updatedAt).to.equal(revision.createdAt);
      // The edited row is now the most recently updated one.
      expect((await owner.get(`/v1/datasets/${dataset.id}/rows`, { limit: 1 })).body.data[0].id).to.equal(row.id);
    });

    it("accepts null, and values of each column type; refuses wrong types with 422 naming the field", async () => {
      const typed = booksDataset(site, "next-link", (b) => {
        b.columns.push(
          { name: "bought_on", type: "date", ownership: "user" },
          { name: "shop", type: "url", ownership: "user" },
          { name: "read", type: "boolean", ownership: "user" },
          { name: "paid", type: "number", ownership: "user" },
        );
      });
      const created = (await owner.post("/v1/datasets", typed)).body.dataset;
      await runSucceeds(owner, created.id);
      const [row] = (await owner.get(`/v1/datasets/${created.id}/rows`, { limit: 1 })).body.data;
      const col = (name: string) => columnId(created, name);
      const patch = (values: Body, expectedRevisionId = row.revisionId) =>
        owner.patch(`/v1/datasets/${created.id}/rows/${row.id}`, {
          expectedRevisionId,
          requestId: requestId(),
          values,
        });
      for (const [name, value] of [
        ["bought_on", 7],
        ["bought_on", "last tuesday"],
        ["shop", "not a url"],
        ["shop", "ftp://example.com/"],
        ["read", "yes"],
        ["paid", "12"],
        ["price", "cheap"],
        ["title", 42],
        ["availability", false],
      ] as const) {
        const answer = await patch({ [col(name)]: value });
        expect(answer.status, `${name}=${JSON.stringify(value)}`).to.equal(422);
        expect(answer.body.error.code).to.equal("validation_error");
        expect(answer.body.error.details[0].path).to.equal(`/values/${col(name)}`);
        expect(answer.body.error.message).to.contain(name);
      }
      const good = await patch({
        [col("bought_on")]: "2026-02-03",
        [col("shop")]: "https://books.example/shop",
        [col("read")]: true,
        [col("paid")]: 12.5,
        [col("title")]: null,
      });
      expect(good.status, JSON.stringify(good.body)).to.equal(200);
      expect(good.body.data[col("title")]).to.equal(null);
      expect(good.body.data[col("read")]).to.equal(true);
      const next = await patch({ [col("bought_on")]: "2026-02-03T10:00:00Z", [col("read")]: null }, good.body.id);
      expect(next.status, JSON.stringify(next.body)).to.equal(200);
    });

    it("refuses identity fields, unknown fields and malformed bodies with 422", async () => {
      const row = await rowOfBook(1);
      const link = columnId(dataset, "link");
      const unknown = globalThis.crypto.randomUUID();
      const tooMany = Object.fromEntries(Array.from({ length: 51 }, () => [globalThis.crypto.randomUUID(), null]));
      for (const [label, body, path] of [
        ["an identity field", { values: { [link]: "x" } }, `/values/${link}`],
        ["an unknown field id", { values: { [unknown]: "x" } }, `/values/${unknown}`],
        ["empty values", { values: {} }, "/values"],
        ["51 values", { values: tooMany }, "/values"],
        ["neither values nor resetFieldIds", {}, "/"],
        ["an object value", { values: { [notes]: { a: 1 } } }, `/values/${notes}`],
        ["an unknown body field", { values: { [notes]: "x" }, comment: "hi" }, "/comment"],
        ["an empty requestId", { values: { [notes]: "x" }, requestId: "" }, "/requestId"],
        ["a 129-char requestId", { values: { [notes]: "x" }, requestId: "r".repeat(129) }, "/requestId"],
        [
          "a non-UUID expectedRevisionId",
          { values: { [notes]: "x" }, expectedRevisionId: "r1" },
          "/expectedRevisionId",
        ],
      ] as const) {
        const answer = await edit(row, body);
        expect(answer.status, label).to.equal(422);
        expect(
          answer.body.error.details.map((d: Body) => d.path),
          label,
        ).to.include(path);
      }
      const missing = await owner.patch(rowPath(row.id), { requestId: requestId(), values: { [notes]: "x" } });
      expect(missing.status).to.equal(422);
      expect((await readRow(row.id)).revisionId).to.equal(row.revisionId);
    });

    it("answers 409 stale_revision when expectedRevisionId is not the current revision", async () => {
      const row = await rowOfBook(2);
      expect((await edit(row, { values: { [notes]: "first" } })).status).to.equal(200);
      const stale = await edit(row, { values: { [notes]: "second" } });
      expect(stale.status).to.equal(409);
      expect(stale.body.error.code).to.equal("stale_revision");
      expect((await readRow(row.id)).data[notes]).to.equal("first");
    });

    it("lets exactly one of several edits racing on one revision win", async () => {
      for (let round = 0; round < 5; round++) {
        const row = await rowOfBook(3);
        const answers = await Promise.all(
          Array.from({ length: 6 }, (_, i) => edit(row, { values: { [notes]: `round ${round} writer ${i}` } })),
        );
        const statuses = answers.map((a) => a.status).sort();
        expect(statuses).to.deep.equal([200, 409, 409, 409, 409, 409]);
        const winner = answers.find((a) => a.status === 200)!.body;
        const now = await readRow(row.id);
        expect(now.revisionId).to.equal(winner.id);
        expect(now.data[notes]).to.equal(winner.data[notes]);
        expect(winner.previousRevisionId).to.equal(row.revisionId);
      }
    });

    it("returns the original revision for a retried requestId, and refuses it with another payload (409 request_id_reused)", async () => {
      const row = await rowOfBook(4);
      const body = {
        expectedRevisionId: row.revisionId,
        requestId: requestId(),
        values: { [notes]: "once", [price]: 2 },
      };
      const first = await owner.patch(rowPath(row.id), body);
      expect(first.status).to.equal(200);
      const sequence = await lastSequence();
      const reordered = { ...body, values: { [price]: 2, [notes]: "once" } };
      const retries = await Promise.all([owner.patch(rowPath(row.id), body), owner.patch(rowPath(row.id), reordered)]);
      for (const retry of retries) {
        expect(retry.status).to.equal(200);
        expect(retry.body).to.deep.equal(first.body);
      }
      expect(await lastSequence()).to.equal(sequence);
      const other = await rowOfBook(6);
      for (const changed of [
        { ...body, values: { [notes]: "twice", [price]: 2 } },
        { ...body, values: { [notes]: "once" } },
        { ...body, expectedRevisionId: first.body.id },
      ]) {
        const reused = await owner.patch(rowPath(row.id), changed);
        expect(reused.status, JSON.stringify(changed)).to.equal(409);
        expect(reused.body.error.code).to.equal("request_id_reused");
      }
      const elsewhere = await owner.patch(rowPath(other.id), { ...body, expectedRevisionId: other.revisionId });
      expect(elsewhere.status).to.equal(409);
      expect(elsewhere.body.error.code).to.equal("request_id_reused");
      expect(await lastSequence()).to.equal(sequence);
      expect((await readRow(row.id)).data[notes]).to.equal("once");
    });

    it("resets only overridden fields, never one also set in values (422), and restores the source value", async () => {
      const row = await rowOfBook(8);
      const source = { value: row.data[price], evidence: row.evidence[price] };
      const notOverridden = await edit(row, { resetFieldIds: [price] });
      expect(notOverridden.status).to.equal(422);
      expect(notOverridden.body.error.details[0].path).to.equal("/resetFieldIds/0");
      const userField = await edit(row, { resetFieldIds: [notes] });
      expect(userField.status).to.equal(422);
      const overridden = await edit(row, { values: { [price]: 0, [title]: "Mine" } });
      expect(overridden.status).to.equal(200);
      const current = { ...row, revisionId: overridden.body.id };
      const overlap = await edit(current, { values: { [price]: 1 }, resetFieldIds: [price] });
      expect(overlap.status).to.equal(422);
      expect(overlap.body.error.details.map((d: Body) => d.path)).to.include("/resetFieldIds/0");
      const repeated = await edit(current, { resetFieldIds: [price, price] });
      expect(repeated.status).to.equal(422);
      const unknown = await edit(current, { resetFieldIds: [globalThis.crypto.randomUUID()] });
      expect(unknown.status).to.equal(422);

      const reset = await edit(current, { resetFieldIds: [price] });
      expect(reset.status, JSON.stringify(reset.body)).to.equal(200);
      expect(reset.body.changedFieldIds).to.deep.equal([price]);
      expect(reset.body.data[price]).to.equal(source.value);
      expect(reset.body.evidence[price]).to.deep.equal(source.evidence);
      expect(Object.keys(reset.body.overrides)).to.deep.equal([title]);
      const detail = await readRow(row.id);
      expect(detail.data[price]).to.equal(source.value);
      expect(detail.data[title]).to.equal("Mine");
    });

    it("keeps overrides across runs: a run refreshes the snapshot, never the manual value; reset restores that run's value", async () => {
      const book = site.books[9]!;
      const row = await rowOfBook(9);
      const edited = await edit(row, { values: { [price]: 99.99 } });
      expect(edited.status).to.equal(200);
      site.setPrice(book.book_id, "£7.77");
      const run = await runSucceeds(owner, dataset.id);
      expect(run.rowDeltas.changed).to.be.at.least(1);
      const afterRun = await readRow(row.id);
      expect(afterRun.data[price]).to.equal(99.99);
      expect(afterRun.overrides[price].value).to.equal(7.77);
      const cited = afterRun.overrides[price].evidence[0].observationId;
      expect(cited).to.not.equal(edited.body.overrides[price].evidence[0].observationId);
      expect(afterRun.observations.map((o: Body) => o.id)).to.include(cited);
      const observation = afterRun.observations.find((o: Body) => o.id === cited);
      expect(observation.runId).to.equal(run.id);
      // A run that sees the same source again leaves the manual value alone too.
      await runSucceeds(owner, dataset.id);
      expect((await readRow(row.id)).data[price]).to.equal(99.99);

      const reset = await edit(afterRun, { resetFieldIds: [price] });
      expect(reset.status, JSON.stringify(reset.body)).to.equal(200);
      expect(reset.body.data[price]).to.equal(7.77);
      expect(reset.body.overrides).to.deep.equal({});
      expect((await readRow(row.id)).data[price]).to.equal(7.77);
    });

    it("answers 404 for unknown and other owners' rows, and 400 for a body that is not JSON", async () => {
      const row = await rowOfBook(10);
      const stranger = await ctx.owner(0);
      const body = { expectedRevisionId: row.revisionId, requestId: requestId(), values: { [notes]: "x" } };
      expect((await stranger.patch(rowPath(row.id), body)).status).to.equal(404);
      expect((await owner.patch(rowPath(globalThis.crypto.randomUUID()), body)).status).to.equal(404);
      const broken = await owner.request("PATCH", rowPath(row.id), { rawBody: "{not json" });
      expect(broken.status).to.equal(400);
      expect((await readRow(row.id)).revisionId).to.equal(row.revisionId);
    });
  });
};

export const rowEditsCapability: Capability = {
  name: "rowEdits",
  register: rowEditCases,
};
