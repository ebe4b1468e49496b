import { expect } from "chai";
import type { Body } from "../bodies.js";
import { makeClient } from "../client.js";
import type { Capability, SuiteContext } from "../context.js";
import { describe, it } from "../runner.js";

/**
 * An owner's API keys (extension): listed without secrets, created with the secret shown once,
 * revoked at once (the next request with it is 401), another owner's key out of reach.
 */
export const keyCases = (ctx: SuiteContext): void => {
  describe("GET/POST/DELETE /v1/keys", () => {
    it("lists the owner's keys by prefix and last four, never a secret or hash, with when each was last used", async () => {
      const owner = await ctx.owner(3);
      const listed = await owner.get("/v1/keys");
      expect(listed.status).to.equal(200);
      expect(listed.credits).to.equal(3);
      const [key] = listed.body.keys as Body[];
      expect(listed.body.keys).to.have.length(1);
      expect(Object.keys(key!).sort()).to.deep.equal(["createdAt", "id", "lastFour", "lastUsedAt", "name", "prefix"]);
      expect(key!.prefix).to.equal(owner.key.slice(0, 7));
      expect(key!.lastFour).to.equal(owner.key.slice(-4));
      // The listing request itself used the key.
      expect(key!.lastUsedAt).to.be.a("string");
      expect(JSON.stringify(listed.body)).to.not.contain(owner.key);
    });

    it("creates a named key whose secret is shown once and works; revoking it refuses it at once", async () => {
      const owner = await ctx.owner(2);
      const created = await owner.post("/v1/keys", { name: "ci" });
      expect(created.status).to.equal(201);
      const { key, secret } = created.body;
      expect(secret).to.match(/^gl_/);
      expect(key).to.include({ name: "ci", prefix: secret.slice(0, 7), lastFour: secret.slice(-4), lastUsedAt: null });
      const second = makeClient(ctx.host().url, secret);
      expect((await second.get("/v1/usage")).body.balance).to.equal(2);
      const listed = (await owner.get("/v1/keys")).body.keys as Body[];
      expect(listed.map((k) => k.name)).to.deep.equal([null, "ci"]);
      expect(JSON.stringify(listed)).to.not.contain(secret);

      const revoked = await owner.request("DELETE", `/v1/keys/${key.id}`);
      expect(revoked.status).to.equal(204);
      const refused = await second.get("/v1/usage");
      expect(refused.status).to.equal(401);
      expect(refused.credits).to.equal(0);
      expect((await owner.get("/v1/keys")).body.keys).to.have.length(1);
      expect((await owner.request("DELETE", `/v1/keys/${key.id}`)).status).to.equal(404);
    });

    it("keeps another owner's keys out of reach (404), and refuses a bad body with 422 naming the field", async () => {
      const owner = await ctx.owner();
      const stranger = await ctx.owner();
      const [own] = (await owner.get("/v1/keys")).body.keys as Body[];
      expect((await stranger.request("DELETE", `/v1/keys/${own!.id}`)).status).to.equal(404);
      expect((await owner.get("/v1/usage")).status).to.equal(200);
      for (const [body, path] of [
        [{ name: "" }, "/name"],
        [{ label: "x" }, "/label"],
      ] as const) {
        const refused = await owner.post("/v1/keys", body);
        expect(refused.status, JSON.stringify(body)).to.equal(422);
        expect(refused.body.error.details.map((d: Body) => d.path)).to.include(path);
      }
      expect((await owner.request("DELETE", "/v1/keys/not-a-key")).status).to.equal(404);
    });
  });
};

export const keysCapability: Capability = { name: "keys", register: keyCases };
