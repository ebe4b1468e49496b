import { expect } from "chai";
import { describe, it } from "../runner.js";
import { makeClient } from "../client.js";
import { validDataset } from "../bodies.js";
import type { Capability, SuiteContext } from "../context.js";

export const authCases = (ctx: SuiteContext): void => {
  describe("authentication", () => {
    const refused = async (headers: Record<string, string>) => {
      const answer = await ctx.anonymous().request("GET", "/v1/datasets", { headers });
      expect(answer.status).to.equal(401);
      expect(answer.body.error.code).to.equal("unauthorized");
      expect(answer.body.error.message).to.be.a("string").and.not.empty;
      expect(answer.headers.get("x-credits-remaining")).to.equal("0");
    };

    it("refuses a request without a key with 401 and X-Credits-Remaining: 0", () => refused({}));
    it("refuses a key of the wrong scheme", async () => {
      const { key } = await ctx.owner();
      await refused({ authorization: `Basic ${key}` });
    });
    it("refuses a key without the gl_ prefix", async () => {
      const { key } = await ctx.owner();
      await refused({ authorization: `Bearer ${key.slice(3)}` });
    });
    it("refuses an unknown key of the right shape", async () => {
      const { key } = await ctx.owner();
      const altered = `${key.slice(0, -1)}${key.endsWith("A") ? "B" : "A"}`;
      await refused({ authorization: `Bearer ${altered}` });
    });
    it("refuses on every endpoint, including ones with a body", async () => {
      const anonymous = ctx.anonymous();
      for (const answer of [
        await anonymous.post("/v1/datasets", {}),
        await anonymous.get(`/v1/datasets/${globalThis.crypto.randomUUID()}`),
        await anonymous.patch(`/v1/datasets/${globalThis.crypto.randomUUID()}`, { name: "x" }),
        await anonymous.get("/v1/usage"),
      ]) {
        expect(answer.status).to.equal(401);
        expect(answer.credits).to.equal(0);
      }
    });
    it("accepts a valid key and reports the owner's balance in X-Credits-Remaining", async () => {
      const owner = await ctx.owner(37);
      const answer = await owner.get("/v1/datasets");
      expect(answer.status).to.equal(200);
      expect(answer.credits).to.equal(37);
    });
    it("keeps each key's data to its owner: another owner's dataset is 404, never 403", async () => {
      const alice = await ctx.owner();
      const bob = await ctx.owner();
      const created = await alice.post("/v1/datasets", validDataset());
      expect(created.status).to.equal(201);
      const id = created.body.dataset.id;
      expect((await bob.get(`/v1/datasets/${id}`)).status).to.equal(404);
      expect((await bob.patch(`/v1/datasets/${id}`, { name: "stolen" })).status).to.equal(404);
      expect((await bob.get("/v1/datasets")).body.data).to.deep.equal([]);
      expect((await alice.get(`/v1/datasets/${id}`)).body.dataset.name).to.equal(created.body.dataset.name);
    });
    it("reports the balance on a rows page, its repeat from the host's cache, its 304 and a 404", async () => {
      const alice = await ctx.owner(37);
      const bob = await ctx.owner(5);
      const created = await alice.post("/v1/datasets", validDataset());
      const rows = `/v1/datasets/${created.body.dataset.id}/rows`;
      const first = await alice.get(rows);
      expect([first.status, first.credits]).to.deep.equal([200, 37]);
      const again = await alice.get(rows);
      expect([again.status, again.credits]).to.deep.equal([200, 37]);
      expect(again.body).to.deep.equal(first.body);
      const tag = first.headers.get("etag")!;
      const unchanged = await alice.request("GET", rows, { headers: { "if-none-match": tag } });
      expect([unchanged.status, unchanged.credits]).to.deep.equal([304, 37]);
      const stolen = await bob.request("GET", rows, { headers: { "if-none-match": tag } });
      expect([stolen.status, stolen.credits]).to.deep.equal([404, 5]);
      expect(stolen.headers.get("etag")).to.equal(null);
      const malformed = await alice.get("/v1/datasets/not-a-uuid/rows");
      expect([malformed.status, malformed.credits]).to.deep.equal([404, 37]);
      // The key is checked before the path: without one, a malformed id is still 401.
      const anonymous = await ctx.anonymous().get("/v1/datasets/not-a-uuid/rows");
      expect([anonymous.status, anonymous.credits]).to.deep.equal([401, 0]);
    });
    it("answers with the documented error body and the header on unknown routes", async () => {
      const owner = await ctx.owner(5);
      const answer = await makeClient(ctx.host().url, owner.key).get("/v1/no-such-thing");
      expect(answer.status).to.equal(404);
      expect(answer.body.error.code).to.equal("not_found");
      // A valid key gets its owner's balance there too; another method on a known path likewise.
      expect(answer.credits).to.equal(5);
      const method = await makeClient(ctx.host().url, owner.key).request("PUT", "/v1/datasets");
      expect([method.status, method.credits]).to.deep.equal([405, 5]);
      const stranger = await makeClient(ctx.host().url, "gl_not-a-key").get("/v1/no-such-thing");
      expect([stranger.status, stranger.credits]).to.deep.equal([404, 0]);
    });
  });
};

export const authCapability: Capability = {
  name: "auth",
  register: authCases,
};
