import { expect } from "chai";
import { allowMs, after, before, describe, it } from "../runner.js";
import { booksDataset, runToEnd } from "../books.js";
import type { Capability, Owner, SuiteContext } from "../context.js";
import { type BooksSite, loadBooks, startBooksSite } from "../sites/index.js";

type Json = Record<string, any>;
type Ids = Record<string, string>;

/** A body each write operation would accept from the resource's owner, so only ownership can refuse it. */
const bodyFor = (operationId: string, ids: Ids, revisionId: string): unknown => {
  if (operationId === "updateDataset") return { name: `Renamed ${globalThis.crypto.randomUUID()}` };
  if (operationId === "editRow") {
    return { expectedRevisionId: revisionId, requestId: globalThis.crypto.randomUUID(), values: { [ids.fieldId!]: 1 } };
  }
  return operationId === "createRun" ? {} : undefined;
};

const fill = (path: string, ids: Ids) => path.replace(/\{([^}]+)\}/g, (_, name: string) => ids[name] ?? "");
const withoutIds = (text: string) =>
  text.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<id>");

/**
 * Broken object-level authorisation, generated from the route table: every operation with a path id,
 * called by another owner with the first owner's ids (and with ids mixing both owners), answers 404
 * with the very body a random id gets. Nothing of the first owner's changes.
 */
export const bolaCases = (ctx: SuiteContext): void => {
  describe("another owner's ids, on every operation with a path id (generated from the OpenAPI document)", () => {
    let site: BooksSite;
    let alice: Owner;
    let bob: Owner;
    let aliceIds: Ids;
    let bobIds: Ids;
    let revisionId: string;
    let operations: Array<{ method: string; path: string; operationId: string }>;

    const resources = async (owner: Owner): Promise<{ ids: Ids; revisionId: string }> => {
      const created = await owner.post(
        "/v1/datasets",
        booksDataset(site, "next-link", (b) => (b.source.maxPages = 1)),
      );
      const dataset = created.body.dataset;
      const run = await runToEnd(owner, dataset.id);
      const row = (await owner.get(`/v1/datasets/${dataset.id}/rows`, { limit: 1 })).body.data[0];
      const artifact = (await owner.get(`/v1/runs/${run.id}/artifacts`)).body.artifacts[0];
      const fieldId = dataset.columns.find((c: Json) => c.name === "price").id;
      const webhook = await owner.post("/v1/webhooks", { url: "https://hooks.example/bola", events: ["run.finished"] });
      return {
        ids: {
          datasetId: dataset.id,
          runId: run.id,
          rowId: row.id,
          artifactId: artifact.id,
          fieldId,
          webhookId: webhook.body.webhook.id,
        },
        revisionId: row.revisionId,
      };
    };

    before(async function () {
      allowMs(this, 120_000);
      site = await startBooksSite({ books: loadBooks().slice(0, 20) });
      alice = await ctx.owner(100);
      bob = await ctx.owner(100);
      ({ ids: aliceIds, revisionId } = await resources(alice));
      ({ ids: bobIds } = await resources(bob));
      const document = (await ctx.anonymous().get("/v1/openapi.json")).body;
      operations = Object.entries<Json>(document.paths).flatMap(([path, item]) =>
        Object.entries<Json>(item)
          .filter(([, operation]) => (operation.parameters ?? []).some((p: Json) => p.in === "path"))
          .map(([method, operation]) => ({ method: method.toUpperCase(), path, operationId: operation.operationId })),
      );
    });
    after(() => site.close());

    it("covers every operation of the document that takes a path id", () => {
      // The matrix is generated: this only guards that the generation found the API's id routes.
      expect(operations.length).to.be.at.least(13);
      expect(operations.map((o) => o.operationId)).to.include.members([
        "getDataset",
        "editRow",
        "getArtifact",
        "deleteWebhook",
        "listWebhookDeliveries",
      ]);
    });

    it("answers 404 with a random id's body for the other owner's ids and for mixed ids; nothing changes", async () => {
      const before = JSON.stringify((await alice.get(`/v1/datasets/${aliceIds.datasetId}/rows`)).body);
      const random: Ids = Object.fromEntries(Object.keys(aliceIds).map((k) => [k, globalThis.crypto.randomUUID()]));
      const mixes: Array<[string, Ids]> = [["the other owner's ids", aliceIds]];
      // Bob's own dataset or run with one of Alice's ids beneath it.
      mixes.push(["own dataset, other's row", { ...bobIds, rowId: aliceIds.rowId! }]);
      mixes.push(["own run, other's artifact", { ...bobIds, artifactId: aliceIds.artifactId! }]);
      let checked = 0;
      const alices = new Set(Object.values(aliceIds));
      for (const { method, path, operationId } of operations) {
        for (const [label, ids] of mixes) {
          const url = fill(path, ids);
          if (url === fill(path, bobIds)) continue; // all of Bob's own ids: not a cross-owner request
          // The same request with each of Alice's ids replaced by an id that names nothing.
          const unknown: Ids = Object.fromEntries(
            Object.entries(ids).map(([k, v]) => [k, alices.has(v) ? random[k]! : v]),
          );
          const expected = await bob.request(method, fill(path, unknown), {
            body: bodyFor(operationId, unknown, revisionId),
          });
          expect(expected.status, `${method} ${path} with ids that name nothing`).to.equal(404);
          const answer = await bob.request(method, url, { body: bodyFor(operationId, ids, revisionId) });
          expect(answer.status, `${method} ${path} (${label})`).to.equal(404);
          expect(answer.body.error.code, `${method} ${path} (${label})`).to.equal(expected.body.error.code);
          expect(withoutIds(answer.body.error.message), `${method} ${path} (${label})`).to.equal(
            withoutIds(expected.body.error.message),
          );
          checked++;
        }
      }
      expect(checked).to.be.at.least(operations.length);
      expect(JSON.stringify((await alice.get(`/v1/datasets/${aliceIds.datasetId}/rows`)).body)).to.equal(before);
      expect((await alice.get(`/v1/datasets/${aliceIds.datasetId}/runs`)).body.data).to.have.length(1);
      expect((await alice.get("/v1/webhooks")).body.webhooks.map((w: Json) => w.id)).to.deep.equal([
        aliceIds.webhookId,
      ]);
    });
  });
};

export const bolaCapability: Capability = {
  name: "bola",
  register: bolaCases,
};
