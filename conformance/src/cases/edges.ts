import { expect } from "chai";
import { describe, it } from "../runner.js";
import { bend, validDataset } from "../bodies.js";
import type { Capability, SuiteContext } from "../context.js";

/** Clear errors at the edges: malformed numbers, media types, run bodies, private sources, hostile bodies. */
export const edgeCases = (ctx: SuiteContext): void => {
  describe("clear errors at the edges", () => {
    it("takes query integers as decimal digits only: 0x10, 1e1, +5, ' 5' and 1.0 are 400 naming the parameter", async () => {
      const owner = await ctx.owner();
      const created = await owner.post("/v1/datasets", validDataset());
      const id = created.body.dataset.id;
      for (const [path, name, value] of [
        ["/v1/datasets", "limit", "0x10"],
        ["/v1/datasets", "limit", "1e1"],
        ["/v1/datasets", "limit", "+5"],
        ["/v1/datasets", "limit", " 5"],
        [`/v1/datasets/${id}/changes`, "after", "1.0"],
        [`/v1/datasets/${id}/rows`, "limit", "-1"],
        [`/v1/datasets/${id}/runs`, "limit", "2.5"],
      ] as const) {
        const answer = await owner.get(path, { [name]: value });
        expect(answer.status, `${name}=${value}`).to.equal(400);
        expect(answer.body.error.code).to.equal("bad_request");
        expect(answer.body.error.details[0].path, `${name}=${value}`).to.equal(name);
      }
      expect((await owner.get("/v1/datasets", { limit: "05" })).status).to.equal(200);
    });

    it("reads a PATCH sent as application/merge-patch+json, and refuses other media types with 415", async () => {
      const owner = await ctx.owner();
      const id = (await owner.post("/v1/datasets", validDataset())).body.dataset.id;
      const merged = await owner.request("PATCH", `/v1/datasets/${id}`, {
        rawBody: JSON.stringify({ name: "Renamed by merge patch" }),
        headers: { "content-type": "application/merge-patch+json" },
      });
      expect(merged.status, JSON.stringify(merged.body)).to.equal(200);
      expect(merged.body.dataset.name).to.equal("Renamed by merge patch");
      for (const type of ["text/plain", "application/x-www-form-urlencoded", "application/vnd.other+json"]) {
        const refused = await owner.request("PATCH", `/v1/datasets/${id}`, {
          rawBody: JSON.stringify({ name: "Not applied" }),
          headers: { "content-type": type },
        });
        expect(refused.status, type).to.equal(415);
        expect(refused.body.error.code).to.equal("unsupported_media_type");
      }
      expect((await owner.get(`/v1/datasets/${id}`)).body.dataset.name).to.equal("Renamed by merge patch");
    });

    it("refuses a run body it does not understand with 422 naming the field, and starts no run", async () => {
      const owner = await ctx.owner();
      const id = (await owner.post("/v1/datasets", validDataset())).body.dataset.id;
      for (const [body, path] of [
        [{ kind: "x" }, "/kind"],
        [{ kind: "deterministic", extra: true }, "/extra"],
      ] as const) {
        const answer = await owner.post(`/v1/datasets/${id}/runs`, body);
        expect(answer.status, JSON.stringify(body)).to.equal(422);
        expect(answer.body.error.details.map((d: { path: string }) => d.path)).to.include(path);
      }
      expect((await owner.get(`/v1/datasets/${id}/runs`)).body.data).to.deep.equal([]);
    });

    it("refuses at creation a source whose host is a private IP literal or localhost, naming the field", async () => {
      const owner = await ctx.owner();
      for (const url of [
        "http://localhost:8080/books.html",
        "http://127.0.0.2/books.html",
        "http://10.1.2.3/books.html",
        "http://[::1]/books.html",
        "http://169.254.169.254/latest/meta-data/",
        "http://0x7f000002/books.html",
      ]) {
        const answer = await owner.post(
          "/v1/datasets",
          bend(validDataset(), (b) => (b.source.url = url)),
        );
        expect(answer.status, url).to.equal(422);
        expect(
          answer.body.error.details.map((d: { path: string }) => d.path),
          url,
        ).to.include("/source/url");
      }
      const pattern = await owner.post(
        "/v1/datasets",
        bend(validDataset(), (b) => {
          b.source.url = "http://192.168.1.10/catalogue/page-1.html";
          b.source.pagination = {
            kind: "url-pattern",
            pattern: "http://192.168.1.10/catalogue/page-{page}.html",
            endSelector: "li.current",
          };
        }),
      );
      expect(pattern.status).to.equal(422);
      expect(pattern.body.error.details.map((d: { path: string }) => d.path)).to.include.members([
        "/source/url",
        "/source/pagination/pattern",
      ]);
      expect((await owner.get("/v1/datasets")).body.data).to.deep.equal([]);
    });

    it("answers a body nested thousands of levels deep with 422, not a crash (POST and PATCH)", async () => {
      const owner = await ctx.owner();
      const deep = `${"[".repeat(2500)}${"]".repeat(2500)}`;
      const created = await owner.request("POST", "/v1/datasets", { rawBody: `{"name":${deep}}` });
      expect(created.status).to.equal(422);
      expect(created.body.error.message).to.match(/nested more than \d+ levels/);
      const id = (await owner.post("/v1/datasets", validDataset())).body.dataset.id;
      const patched = await owner.request("PATCH", `/v1/datasets/${id}`, { rawBody: `{"columns":${deep}}` });
      expect(patched.status).to.equal(422);
    });

    it("caps the details of a body with thousands of problems at 20, with a count of the rest", async () => {
      const owner = await ctx.owner();
      const body = bend(validDataset(), (b) => {
        b.columns = Array.from({ length: 8000 }, (_, i) => ({ name: `c${i}`, type: "nope", extra: i }));
      });
      const answer = await owner.post("/v1/datasets", body);
      expect(answer.status).to.equal(422);
      expect(answer.body.error.details.length).to.be.at.most(20).and.at.least(1);
      const few = await owner.post(
        "/v1/datasets",
        bend(validDataset(), (b) => {
          b.columns = Array.from({ length: 60 }, (_, i) => ({ name: `c${i}`, type: "nope" }));
        }),
      );
      expect(few.status).to.equal(422);
      expect(few.body.error.details).to.have.length(20);
      expect(few.body.error.truncatedDetails).to.be.above(0);
    });
  });
};

export const edgesCapability: Capability = {
  name: "edges",
  register: edgeCases,
};
