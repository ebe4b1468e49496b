import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "chai";
import { after, before, describe, it } from "../runner.js";
import { type Body, bend, validDataset } from "../bodies.js";
import { runToEnd } from "../books.js";
import type { Capability, SuiteContext } from "../context.js";
import { allRows, createDataset } from "./rows.js";

/** Every error body fits in this many bytes, whatever the request (decision 0041). */
const maxErrorBody = 16 * 1024;
const size = (body: unknown) => Buffer.byteLength(JSON.stringify(body), "utf8");
/** Under the suite host's 1 MiB body limit once JSON-encoded with the rest of the body. */
const huge = "x".repeat(900_000);

/**
 * Bounded answers and cells, the same on every store (issue 33): error bodies of at most 16 KiB that
 * name the field and the size of what they cut, text no store can keep refused at the edge, and
 * scraped values kept within a cell's bound and as well-formed text.
 */
export const boundCases = (ctx: SuiteContext): void => {
  describe("bounded answers and cells", () => {
    it("answers megabyte values and thousands of columns with a 422 of at most 16 KiB naming the field", async () => {
      const owner = await ctx.owner();
      const id = (await owner.post("/v1/datasets", validDataset())).body.dataset.id;
      const requests: Array<[string, () => Promise<{ status: number; body: Body }>, string]> = [
        [
          "name",
          () =>
            owner.post(
              "/v1/datasets",
              bend(validDataset(), (b) => void (b.name = huge)),
            ),
          "/name",
        ],
        ["schedule", () => owner.patch(`/v1/datasets/${id}`, { schedule: huge }), "/schedule"],
        [
          "columns",
          () =>
            owner.post(
              "/v1/datasets",
              bend(validDataset(), (b) => {
                b.columns = Array.from({ length: 10_000 }, (_, i) => ({ name: `c${i}`.repeat(8), type: "nope" }));
              }),
            ),
          "/columns/0/type",
        ],
        [
          "webhook url",
          () => owner.post("/v1/webhooks", { url: `https://hooks.example/${huge}`, events: ["run.finished"] }),
          "/url",
        ],
        ["question", () => owner.patch(`/v1/datasets/${id}`, { question: huge }), "/question"],
      ];
      for (const [what, send, path] of requests) {
        const answer = await send();
        expect(answer.status, what).to.equal(422);
        expect(size(answer.body), what).to.be.at.most(maxErrorBody);
        expect(
          answer.body.error.details.map((d: Body) => d.path),
          what,
        ).to.include(path);
      }
      const named = await requests[0]![1]();
      expect(named.body.error.message).to.match(/\(cut: \d+ bytes in all\)/);
    });

    it("refuses U+0000 and lone surrogates in any text of a body with 422 naming the field, on every store", async () => {
      const owner = await ctx.owner();
      const created = await owner.post("/v1/datasets", validDataset());
      const id = created.body.dataset.id;
      const cases: Array<[string, () => Promise<{ status: number; body: Body }>, string]> = [
        [
          "name",
          () =>
            owner.post(
              "/v1/datasets",
              bend(validDataset(), (b) => void (b.name = "Bo\u0000oks")),
            ),
          "/name",
        ],
        ["question", () => owner.patch(`/v1/datasets/${id}`, { question: "why\u0000" }), "/question"],
        [
          "column label",
          () =>
            owner.post(
              "/v1/datasets",
              bend(validDataset(), (b) => void (b.columns[1].label = "Ti\u0000tle")),
            ),
          "/columns/1/label",
        ],
        [
          "lone surrogate",
          () =>
            owner.post(
              "/v1/datasets",
              bend(validDataset(), (b) => void (b.name = "Bo\ud800oks")),
            ),
          "/name",
        ],
        [
          "webhook url",
          () => owner.post("/v1/webhooks", { url: "https://hooks.example/\u0000", events: ["run.finished"] }),
          "/url",
        ],
        [
          "requestId",
          () =>
            owner.patch(`/v1/datasets/${id}/rows/${globalThis.crypto.randomUUID()}`, {
              expectedRevisionId: globalThis.crypto.randomUUID(),
              requestId: "edit\u0000",
              values: {},
            }),
          "/requestId",
        ],
      ];
      for (const [what, send, path] of cases) {
        const answer = await send();
        expect(answer.status, `${what}: ${JSON.stringify(answer.body)}`).to.equal(422);
        expect(answer.body.error.details[0].path, what).to.equal(path);
      }
      expect((await owner.get("/v1/datasets")).body.data).to.have.length(1);
    });

    describe("scraped text", () => {
      let site: Server;
      let url = "";
      before(async () => {
        // Twelve items: the first's title attribute is 40 KiB, the second's text holds U+0000 and a
        // character reference to a lone surrogate, the third's data-note attribute U+0000.
        site = createServer((_request, response) => {
          const items = Array.from({ length: 12 }, (_, i) => {
            const title = i === 0 ? "t".repeat(40 * 1024) : `title ${i}`;
            const note = i === 2 ? "no\u0000te" : `note ${i}`;
            const text = i === 1 ? "na\u0000me &#xD800;" : `name ${i}`;
            return `<li class="item" title="${title}" data-note="${note}"><b>item-${i}</b><i>${text}</i></li>`;
          }).join("");
          response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
          response.end(`<html><body><ul>${items}</ul></body></html>`);
        }).listen(0, "127.0.0.1");
        await new Promise((resolve) => site.once("listening", resolve));
        url = `http://127.0.0.1:${(site.address() as AddressInfo).port}/list.html`;
      });
      after(() => new Promise<void>((resolve) => site.close(() => resolve())));

      const dataset = (owner: Body, withTitle: boolean) =>
        createDataset(owner as never, {
          name: `Bounds ${globalThis.crypto.randomUUID().slice(0, 8)}`,
          columns: [
            { name: "label", type: "string", key: true },
            ...(withTitle ? [{ name: "title", type: "string" }] : []),
            { name: "text", type: "string" },
            { name: "note", type: "string" },
          ],
          source: {
            version: 1,
            url,
            itemSelector: "li.item",
            fields: [
              { name: "label", read: { selector: "b" } },
              ...(withTitle ? [{ name: "title", read: { kind: "attribute", attribute: "title" } }] : []),
              { name: "text", read: { selector: "i" } },
              { name: "note", read: { kind: "attribute", attribute: "data-note" } },
            ],
            identity: { kind: "source-key", field: "label" },
            pagination: { kind: "none" },
          },
        });

      it("never cuts a value longer than 32 KiB: it is extraction_failed (failing the extraction check) with a finding", async () => {
        const owner = await ctx.owner();
        const created = await dataset(owner, true);
        const title = created.columns.find((c: Body) => c.name === "title").id;
        const run = await runToEnd(owner, created.id);
        expect(run.status, JSON.stringify(run).slice(0, 500)).to.equal("failed");
        const extraction = run.checks.find((c: Body) => c.checkId === "extraction");
        expect(extraction.passed).to.equal(false);
        expect(extraction.message).to.contain("(cut: 40960 bytes in all)");
        expect(size(run)).to.be.below(8 * 1024);
        const findings = (await owner.get(`/v1/runs/${run.id}/diagnostics`)).body.diagnostics.findings;
        const tooLarge = findings.find((f: Body) => f.code === `cells_too_large:${title}`);
        expect(tooLarge?.message).to.contain("the largest 40960 bytes");
      });

      it("stores scraped text as HTML reads it on every store and parser: U+0000 dropped from text, U+FFFD in an attribute", async () => {
        const owner = await ctx.owner();
        const created = await dataset(owner, false);
        const run = await runToEnd(owner, created.id);
        expect(run.status, JSON.stringify(run)).to.equal("succeeded");
        const text = created.columns.find((c: Body) => c.name === "text").id;
        const all = await allRows(owner, created.id);
        const row = all.find((r) => r.rowKey === "item-1")!;
        expect(row.data[text]).to.equal("name \ufffd");
        const note = created.columns.find((c: Body) => c.name === "note").id;
        expect(all.find((r) => r.rowKey === "item-2")!.data[note]).to.equal("no\ufffdte");
        const detail = (await owner.get(`/v1/datasets/${created.id}/rows/${row.id}`)).body;
        const excerpts = detail.observations.flatMap((o: Body) => o.entries.map((e: Body) => e.excerpt)).join("");
        expect(excerpts).to.contain("name").and.not.contain("\u0000");
      });
    });
  });
};

export const boundsCapability: Capability = { name: "bounds", register: boundCases };
