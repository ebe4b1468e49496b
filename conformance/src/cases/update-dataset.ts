import { expect } from "chai";
import { describe, it } from "../runner.js";
import { type Body, validDataset } from "../bodies.js";
import type { Capability, Owner, SuiteContext } from "../context.js";

const created = async (owner: Owner): Promise<Body> => {
  const answer = await owner.post("/v1/datasets", validDataset());
  expect(answer.status).to.equal(201);
  return answer.body.dataset;
};

const sameColumns = (dataset: Body): Body[] => dataset.columns.map((c: Body) => ({ ...c }));

export const updateDatasetCases = (ctx: SuiteContext): void => {
  describe("PATCH /v1/datasets/{datasetId}", () => {
    it("updates name and question, keeps everything else, and moves updatedAt", async () => {
      const owner = await ctx.owner(3);
      const dataset = await created(owner);
      const answer = await owner.patch(`/v1/datasets/${dataset.id}`, { name: "Renamed", question: "New question?" });
      expect(answer.status).to.equal(200);
      expect(answer.credits).to.equal(3);
      const next = answer.body.dataset;
      expect(next).to.include({
        id: dataset.id,
        name: "Renamed",
        question: "New question?",
        schemaVersion: 1,
        status: "draft",
      });
      expect(next.columns).to.deep.equal(dataset.columns);
      expect(next.createdAt).to.equal(dataset.createdAt);
      expect(Date.parse(next.updatedAt)).to.be.at.least(Date.parse(dataset.updatedAt));
      expect((await owner.get(`/v1/datasets/${dataset.id}`)).body.dataset).to.deep.equal(next);
    });

    it("clears the question with null", async () => {
      const owner = await ctx.owner();
      const dataset = await created(owner);
      const answer = await owner.patch(`/v1/datasets/${dataset.id}`, { question: null });
      expect(answer.status).to.equal(200);
      expect(answer.body.dataset.question).to.equal(null);
    });

    it("moves status draft -> active -> paused -> active, and never back to draft", async () => {
      const owner = await ctx.owner();
      const dataset = await created(owner);
      for (const status of ["active", "paused", "active"]) {
        const answer = await owner.patch(`/v1/datasets/${dataset.id}`, { status });
        expect(answer.status).to.equal(200);
        expect(answer.body.dataset.status).to.equal(status);
      }
      const back = await owner.patch(`/v1/datasets/${dataset.id}`, { status: "draft" });
      expect(back.status).to.equal(422);
      expect(back.body.error.details[0].path).to.equal("/status");
    });

    for (const [name, body, path] of [
      ["an empty body", {}, "/"],
      ["an unknown field", { owner: "x" }, "/owner"],
      ["an empty name", { name: "" }, "/name"],
      ["a 121-character name", { name: "n".repeat(121) }, "/name"],
      ["a 1001-character question", { question: "q".repeat(1001) }, "/question"],
      ["an unknown status", { status: "archived" }, "/status"],
      ["a non-integer expectedSchemaVersion", { expectedSchemaVersion: 1.5 }, "/expectedSchemaVersion"],
      ["expectedSchemaVersion 0", { expectedSchemaVersion: 0 }, "/expectedSchemaVersion"],
      ["a schedule shorter than 9 characters", { schedule: "* * * *" }, "/schedule"],
      [
        "columns without expectedSchemaVersion",
        { columns: [{ name: "x", type: "string", ownership: "user" }] },
        "/expectedSchemaVersion",
      ],
    ] as const) {
      it(`refuses ${name} with 422 naming ${path}`, async () => {
        const owner = await ctx.owner();
        const dataset = await created(owner);
        const answer = await owner.patch(`/v1/datasets/${dataset.id}`, body);
        expect(answer.status).to.equal(422);
        expect(answer.body.error.code).to.equal("validation_error");
        expect(answer.body.error.details.map((d: Body) => d.path)).to.include(path);
        expect((await owner.get(`/v1/datasets/${dataset.id}`)).body.dataset).to.deep.equal(dataset);
      });
    }

    it("refuses a name another dataset of the owner has (409)", async () => {
      const owner = await ctx.owner();
      const a = await created(owner);
      const b = await created(owner);
      const answer = await owner.patch(`/v1/datasets/${b.id}`, { name: a.name });
      expect(answer.status).to.equal(409);
      expect((await owner.get(`/v1/datasets/${b.id}`)).body.dataset.name).to.equal(b.name);
    });

    it("answers 404 for an unknown id, a non-UUID id and another owner's dataset", async () => {
      const owner = await ctx.owner();
      const other = await ctx.owner();
      const theirs = await created(other);
      for (const id of [globalThis.crypto.randomUUID(), "not-a-uuid", theirs.id]) {
        const answer = await owner.patch(`/v1/datasets/${id}`, { name: "x" });
        expect(answer.status).to.equal(404);
        expect(answer.body.error.code).to.equal("not_found");
        expect((await owner.get(`/v1/datasets/${id}`)).status).to.equal(404);
      }
    });

    it("refuses malformed JSON with 400 and a non-JSON body with 415", async () => {
      const owner = await ctx.owner();
      const dataset = await created(owner);
      const malformed = await owner.request("PATCH", `/v1/datasets/${dataset.id}`, { rawBody: '{"name": ' });
      expect(malformed.status).to.equal(400);
      expect(malformed.body.error.code).to.equal("bad_request");
      const text = await owner.request("PATCH", `/v1/datasets/${dataset.id}`, {
        rawBody: "name=x",
        headers: { "content-type": "application/x-www-form-urlencoded" },
      });
      expect(text.status).to.equal(415);
      expect(text.body.error.code).to.equal("unsupported_media_type");
    });

    it("refuses a body over the size limit with 413 and a clear error", async () => {
      const owner = await ctx.owner();
      const huge = JSON.stringify({ ...validDataset(), question: "q".repeat(3 * 1024 * 1024) });
      const answer = await owner.request("POST", "/v1/datasets", { rawBody: huge });
      expect(answer.status).to.equal(413);
      expect(answer.body.error.code).to.equal("payload_too_large");
      expect((await owner.get("/v1/datasets")).body.data).to.deep.equal([]);
    });

    describe("columns", () => {
      it("edits labels and descriptions and adds user columns: schemaVersion + 1", async () => {
        const owner = await ctx.owner();
        const dataset = await created(owner);
        const columns = sameColumns(dataset);
        columns[1].label = "Title";
        columns[2].description = "Price in pounds";
        columns.push({ name: "reviewed", type: "boolean", ownership: "user", label: "Reviewed?" });
        const answer = await owner.patch(`/v1/datasets/${dataset.id}`, { expectedSchemaVersion: 1, columns });
        expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
        const next = answer.body.dataset;
        expect(next.schemaVersion).to.equal(2);
        expect(next.columns.slice(0, 5).map((c: Body) => c.id)).to.deep.equal(dataset.columns.map((c: Body) => c.id));
        expect(next.columns[1].label).to.equal("Title");
        expect(next.columns[2].description).to.equal("Price in pounds");
        expect(next.columns[5]).to.include({ name: "reviewed", ownership: "user", key: false, label: "Reviewed?" });
        expect(next.columns[5].id).to.be.a("string");
      });

      it("answers 409 for a stale expectedSchemaVersion", async () => {
        const owner = await ctx.owner();
        const dataset = await created(owner);
        const columns = sameColumns(dataset);
        columns[1].label = "One";
        expect(
          (await owner.patch(`/v1/datasets/${dataset.id}`, { expectedSchemaVersion: 1, columns })).status,
        ).to.equal(200);
        columns[1].label = "Two";
        const stale = await owner.patch(`/v1/datasets/${dataset.id}`, { expectedSchemaVersion: 1, columns });
        expect(stale.status).to.equal(409);
        expect(stale.body.error.code).to.equal("schema_version_conflict");
      });

      for (const [name, edit, path] of [
        ["a dropped column", (c: Body[]) => void c.splice(3, 1), "/columns"],
        ["a renamed column", (c: Body[]) => void (c[1].name = "heading"), "/columns/1/name"],
        ["a retyped column", (c: Body[]) => void (c[2].type = "string"), "/columns/2/type"],
        ["a changed ownership", (c: Body[]) => void (c[4].ownership = "collected"), "/columns/4/ownership"],
        ["a changed key flag", (c: Body[]) => void (c[1].key = true), "/columns/1/key"],
        [
          "a new collected column",
          (c: Body[]) => void c.push({ name: "rating", type: "string" }),
          "/columns/5/ownership",
        ],
        ["an unknown id", (c: Body[]) => void (c[4].id = globalThis.crypto.randomUUID()), "/columns/4/id"],
        [
          "a new column with a taken name",
          (c: Body[]) => void c.push({ name: "title", type: "string", ownership: "user" }),
          "/columns/5/name",
        ],
        [
          "a new user key column",
          (c: Body[]) => void c.push({ name: "k", type: "string", ownership: "user", key: true }),
          "/columns/5/key",
        ],
      ] as const) {
        it(`refuses ${name} with 422 naming ${path}`, async () => {
          const owner = await ctx.owner();
          const dataset = await created(owner);
          const columns = sameColumns(dataset);
          edit(columns);
          const answer = await owner.patch(`/v1/datasets/${dataset.id}`, { expectedSchemaVersion: 1, columns });
          expect(answer.status, JSON.stringify(answer.body)).to.equal(422);
          expect(answer.body.error.details.map((d: Body) => d.path)).to.include(path);
          expect((await owner.get(`/v1/datasets/${dataset.id}`)).body.dataset.schemaVersion).to.equal(1);
        });
      }
    });
  });
};

export const updateDatasetCapability: Capability = {
  name: "updateDataset",
  register: updateDatasetCases,
};
