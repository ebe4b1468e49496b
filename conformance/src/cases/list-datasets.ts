import { expect } from "chai";
import { describe, it } from "../runner.js";
import { validDataset } from "../bodies.js";
import type { Capability, Owner, SuiteContext } from "../context.js";

const createMany = async (owner: Owner, n: number): Promise<string[]> => {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const answer = await owner.post("/v1/datasets", validDataset(`Dataset ${i}`));
    expect(answer.status).to.equal(201);
    ids.push(answer.body.dataset.id);
  }
  return ids;
};

export const listDatasetsCases = (ctx: SuiteContext): void => {
  describe("GET /v1/datasets", () => {
    it("lists newest first with a default page of 20", async () => {
      const owner = await ctx.owner();
      const ids = await createMany(owner, 22);
      const answer = await owner.get("/v1/datasets");
      expect(answer.status).to.equal(200);
      expect(Object.keys(answer.body).sort()).to.deep.equal(["data", "nextCursor"]);
      expect(answer.body.data.map((d: { id: string }) => d.id)).to.deep.equal(ids.reverse().slice(0, 20));
      expect(answer.body.nextCursor).to.be.a("string");
    });

    it("walks every page with nextCursor, without repeats or gaps, and ends with null", async () => {
      const owner = await ctx.owner();
      const ids = await createMany(owner, 7);
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const query: Record<string, string | number> = { limit: 3, ...(cursor ? { cursor } : {}) };
        const answer = await owner.get("/v1/datasets", query);
        expect(answer.status).to.equal(200);
        expect(answer.body.data.length).to.be.at.most(3);
        seen.push(...answer.body.data.map((d: { id: string }) => d.id));
        cursor = answer.body.nextCursor;
        pages++;
      } while (cursor);
      expect(pages).to.equal(3);
      expect(seen).to.deep.equal([...ids].reverse());
    });

    it("returns nextCursor null when the last page is exactly full", async () => {
      const owner = await ctx.owner();
      await createMany(owner, 2);
      const answer = await owner.get("/v1/datasets", { limit: 2 });
      expect(answer.body.data).to.have.length(2);
      expect(answer.body.nextCursor).to.equal(null);
    });

    it("accepts limit 1 and 100", async () => {
      const owner = await ctx.owner();
      await createMany(owner, 2);
      expect((await owner.get("/v1/datasets", { limit: 1 })).body.data).to.have.length(1);
      expect((await owner.get("/v1/datasets", { limit: 100 })).body.data).to.have.length(2);
    });

    for (const [name, query, param] of [
      ["limit 0", { limit: 0 }, "limit"],
      ["limit 101", { limit: 101 }, "limit"],
      ["a non-numeric limit", { limit: "ten" }, "limit"],
      ["a fractional limit", { limit: "2.5" }, "limit"],
      ["a repeated limit", { limit: ["1", "2"] }, "limit"],
      ["an unknown parameter", { sort: "name" }, "sort"],
      ["a cursor that is not a cursor", { cursor: "not-a-cursor" }, "cursor"],
    ] as const) {
      it(`answers 400 naming the parameter for ${name}`, async () => {
        const owner = await ctx.owner(9);
        const answer = await owner.get("/v1/datasets", query as Record<string, string>);
        expect(answer.status).to.equal(400);
        expect(answer.body.error.code).to.equal("bad_request");
        expect(answer.body.error.details.map((d: { path: string }) => d.path)).to.include(param);
        expect(answer.credits).to.equal(9);
      });
    }

    it("answers 400 for a tampered cursor", async () => {
      const owner = await ctx.owner();
      await createMany(owner, 3);
      const { nextCursor } = (await owner.get("/v1/datasets", { limit: 1 })).body;
      const [payload, sum] = nextCursor.split(".");
      const flipped = payload.slice(0, 5) + (payload[5] === "A" ? "B" : "A") + payload.slice(6);
      expect((await owner.get("/v1/datasets", { cursor: `${flipped}.${sum}` })).status).to.equal(400);
      expect((await owner.get("/v1/datasets", { cursor: `${payload}.x${sum}` })).status).to.equal(400);
    });

    it("answers 400 for another owner's cursor", async () => {
      const alice = await ctx.owner();
      const bob = await ctx.owner();
      await createMany(alice, 2);
      const { nextCursor } = (await alice.get("/v1/datasets", { limit: 1 })).body;
      const answer = await bob.get("/v1/datasets", { cursor: nextCursor });
      expect(answer.status).to.equal(400);
      expect(answer.body.error.code).to.equal("bad_request");
    });
  });
};

export const listDatasetsCapability: Capability = {
  name: "listDatasets",
  register: listDatasetsCases,
};
