import { expect } from "chai";
import { after, before, describe, it } from "../runner.js";
import type { Body } from "../bodies.js";
import { booksDataset, runToEnd } from "../books.js";
import type { Capability, Owner, SuiteContext } from "../context.js";
import type { BooksSite } from "../sites/index.js";
import { startWebhookReceiver, type WebhookReceiver } from "../webhook-receiver.js";
import { createBooks, runSucceeds, startSmallBooksSite } from "./rows.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Webhooks (issue 18, docs/decisions/0018-data-out.md): registration, owner scoping, and deliveries
 * a loopback receiver verifies with the `standardwebhooks` package. The suite's host retries after
 * 50 ms (GLEANER_WEBHOOK_RETRY_BASE_MS) so retries are seen within a test.
 */
export const webhookCases = (ctx: SuiteContext): void => {
  describe("webhooks (data out)", () => {
    let site: BooksSite;
    let receiver: WebhookReceiver;
    before(async () => {
      site = await startSmallBooksSite();
      receiver = await startWebhookReceiver();
    });
    after(async () => {
      await site.close();
      await receiver.close();
    });

    /** Registers a webhook for `path` on the receiver and tells the receiver its secret. */
    const register = async (
      owner: Owner,
      path: string,
      extra: Body = {},
      answer?: Parameters<WebhookReceiver["expect"]>[2],
    ): Promise<Body> => {
      const created = await owner.post("/v1/webhooks", {
        url: `${receiver.url}${path}`,
        events: ["run.finished", "rows.changed"],
        ...extra,
      });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      expect(created.body.secret).to.match(/^whsec_/);
      receiver.expect(path, created.body.secret, answer);
      return created.body.webhook;
    };
    /** The webhook's recorded attempts once there are `count` (a receiver sees a delivery just before it is recorded). */
    const deliveries = async (owner: Owner, webhookId: string, count: number): Promise<Body[]> => {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const answer = await owner.get(`/v1/webhooks/${webhookId}/deliveries`);
        expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
        if (answer.body.deliveries.length >= count || Date.now() > deadline) return answer.body.deliveries;
        await sleep(25);
      }
    };
    const unique = () => `/${globalThis.crypto.randomUUID()}`;

    it("registers with the secret shown once, lists without it, and deletes (204)", async () => {
      const owner = await ctx.owner(10);
      const webhook = await register(owner, unique(), { events: ["run.finished"] });
      expect(webhook).to.include.keys("id", "url", "events", "datasetId", "createdAt");
      expect(webhook.datasetId).to.equal(null);
      const listed = await owner.get("/v1/webhooks");
      expect(listed.status).to.equal(200);
      expect(listed.body.webhooks.map((w: Body) => w.id)).to.deep.equal([webhook.id]);
      expect(JSON.stringify(listed.body)).not.to.contain("whsec_");
      expect((await owner.request("DELETE", `/v1/webhooks/${webhook.id}`)).status).to.equal(204);
      expect((await owner.get("/v1/webhooks")).body.webhooks).to.deep.equal([]);
      expect((await owner.request("DELETE", `/v1/webhooks/${webhook.id}`)).status).to.equal(404);
    });

    it("refuses bad bodies with 422 naming the field", async () => {
      const owner = await ctx.owner(10);
      const cases: Array<[Body, string]> = [
        [{ url: "ftp://hooks.example/x", events: ["run.finished"] }, "/url"],
        [{ url: "http://10.1.2.3/hook", events: ["run.finished"] }, "/url"],
        [{ url: "https://hooks.example/x", events: [] }, "/events"],
        [{ url: "https://hooks.example/x", events: ["row.deleted"] }, "/events/0"],
        [
          { url: "https://hooks.example/x", events: ["run.finished"], datasetId: globalThis.crypto.randomUUID() },
          "/datasetId",
        ],
        [{ url: "https://hooks.example/x", events: ["run.finished"], secret: "mine" }, "/secret"],
        [{ events: ["run.finished"] }, "/url"],
      ];
      for (const [body, path] of cases) {
        const answer = await owner.post("/v1/webhooks", body);
        expect(answer.status, JSON.stringify(body)).to.equal(422);
        expect(answer.body.error.code).to.equal("validation_error");
        expect(
          answer.body.error.details.map((d: Body) => d.path),
          JSON.stringify(answer.body),
        ).to.include(path);
      }
    });

    it("another owner's webhook is 404 and never listed; its dataset cannot be filtered on", async () => {
      const owner = await ctx.owner(10);
      const other = await ctx.owner(10);
      const webhook = await register(owner, unique());
      expect((await other.get(`/v1/webhooks/${webhook.id}/deliveries`)).status).to.equal(404);
      expect((await other.request("DELETE", `/v1/webhooks/${webhook.id}`)).status).to.equal(404);
      expect((await other.get("/v1/webhooks")).body.webhooks).to.deep.equal([]);
      const dataset = await createBooks(owner, site);
      const foreign = await other.post("/v1/webhooks", {
        url: "https://hooks.example/x",
        events: ["run.finished"],
        datasetId: dataset.id,
      });
      expect(foreign.status).to.equal(422);
      expect(foreign.body.error.details[0].path).to.equal("/datasetId");
      expect((await owner.get(`/v1/webhooks/${webhook.id}/deliveries`)).status).to.equal(200);
    });

    it("delivers an accepted run's run.finished then rows.changed, signed, in order run after run", async () => {
      site.reset();
      const owner = await ctx.owner(300);
      const dataset = await createBooks(owner, site);
      const path = unique();
      const webhook = await register(owner, path, { datasetId: dataset.id });
      const first = await runSucceeds(owner, dataset.id);
      site.setPrice(site.books[3]!.book_id, "£9.99");
      const second = await runSucceeds(owner, dataset.id);
      const got = await receiver.waitFor(path, 4);
      expect(
        got.every((d) => d.verified !== null),
        "every delivery verifies with standardwebhooks",
      ).to.equal(true);
      expect(got.map((d) => [d.verified!.type, d.verified!.data.runId ?? null])).to.deep.equal([
        ["run.finished", first.id],
        ["rows.changed", null],
        ["run.finished", second.id],
        ["rows.changed", null],
      ]);
      expect(got[0]!.verified!.data).to.deep.include({ status: "succeeded", datasetId: dataset.id, creditsCharged: 3 });
      const window = got[1]!.verified!.data as Body;
      expect(window).to.deep.include({ datasetId: dataset.id, after: 0, through: 60 });
      expect(window.counts.created).to.equal(60);
      const later = got[3]!.verified!.data as Body;
      expect(later).to.deep.include({ after: 60, through: 61 });
      expect(later.counts.updated).to.equal(1);
      // The window names exactly the revisions GET /changes serves for it; no row data in the payload.
      const changes = await owner.get(`/v1/datasets/${dataset.id}/changes`, { after: 60, through: 61 });
      expect(changes.body.data.map((r: Body) => r.sequence)).to.deep.equal([61]);
      expect(got.every((d) => !d.body.includes("£"))).to.equal(true);
      expect(new Set(got.map((d) => d.headers["webhook-id"])).size).to.equal(4);
      const recorded = await deliveries(owner, webhook.id, 4);
      expect(recorded.map((d) => d.status)).to.deep.equal(["delivered", "delivered", "delivered", "delivered"]);
      expect(recorded[0]).to.include({ responseStatus: 204, nextRetryAt: null, attempt: 1 });
    });

    it("retries after a 500 and a dropped connection with one webhook-id; the next event waits its turn", async () => {
      site.reset();
      const owner = await ctx.owner(300);
      const dataset = await createBooks(owner, site);
      const path = unique();
      const webhook = await register(owner, path, {}, (attempt) =>
        attempt === 1 ? 500 : attempt === 2 ? "drop" : 204,
      );
      await runSucceeds(owner, dataset.id);
      const got = await receiver.waitFor(path, 4);
      expect(got.map((d) => d.verified?.type)).to.deep.equal([
        "run.finished",
        "run.finished",
        "run.finished",
        "rows.changed",
      ]);
      expect(new Set(got.slice(0, 3).map((d) => d.headers["webhook-id"])).size).to.equal(1);
      const recorded = (await deliveries(owner, webhook.id, 4)).reverse();
      expect(recorded.map((d) => [d.attempt, d.status, d.responseStatus])).to.deep.equal([
        [1, "retrying", 500],
        [2, "retrying", null],
        [3, "delivered", 204],
        [1, "delivered", 204],
      ]);
      expect(recorded[1]!.error).to.match(/^network/);
      expect(recorded[0]!.nextRetryAt).to.be.a("string");
    });

    it("does not retry a 400: that event is given up and the next one still goes", async () => {
      site.reset();
      const owner = await ctx.owner(300);
      const dataset = await createBooks(owner, site);
      const path = unique();
      const webhook = await register(owner, path, {}, (attempt) => (attempt === 1 ? 400 : 204));
      await runSucceeds(owner, dataset.id);
      await receiver.waitFor(path, 2);
      await sleep(800);
      expect(receiver.at(path).map((d) => d.verified?.type)).to.deep.equal(["run.finished", "rows.changed"]);
      const recorded = (await deliveries(owner, webhook.id, 2)).reverse();
      expect(recorded.map((d) => [d.status, d.responseStatus, d.nextRetryAt])).to.deep.equal([
        ["failed", 400, null],
        ["delivered", 204, null],
      ]);
    });

    it("lets a receiver that never answers delay only its own events: another owner's goes out at once", async () => {
      site.reset();
      const stuck = await ctx.owner(300);
      const dead = unique();
      const deadHook = await register(stuck, dead, {}, () => "hang");
      const datasets = await Promise.all(Array.from({ length: 8 }, () => createBooks(stuck, site)));
      await Promise.all(datasets.map((d) => runSucceeds(stuck, d.id)));
      await receiver.waitFor(dead, 1);

      const other = await ctx.owner(30);
      const alive = unique();
      await register(other, alive);
      const run = await runSucceeds(other, (await createBooks(other, site)).id);
      const [delivered] = await receiver.waitFor(alive, 1);
      const waited = Date.now() - Date.parse(run.completedAt);
      expect(delivered!.verified!.data).to.deep.include({ runId: run.id });
      // Within one delivery timeout (2 s on the suite's host), though 16 events wait on the dead receiver.
      expect(waited, `${waited} ms`).to.be.below(2_000);
      // One delivery at a time to the dead receiver: it never held a second of the worker's slots.
      expect(receiver.mostHanging(dead)).to.equal(1);
      // Its 16 events would go on retrying a receiver that is gone for the rest of the suite.
      expect((await stuck.request("DELETE", `/v1/webhooks/${deadHook.id}`)).status).to.equal(204);
    });

    it("sends run.finished (only) for a failed run, and nothing for a held run", async () => {
      site.reset();
      const owner = await ctx.owner(300);
      const failing = (
        await owner.post(
          "/v1/datasets",
          booksDataset(site, "next-link", (b) => void (b.source.maxPages = 1)),
        )
      ).body.dataset;
      const path = unique();
      await register(owner, path);
      const failed = await runToEnd(owner, failing.id);
      expect(failed.status).to.equal("failed");
      const [finished] = await receiver.waitFor(path, 1);
      expect(finished!.verified!.data).to.deep.include({ runId: failed.id, status: "failed", creditsCharged: 0 });

      const poor = await ctx.owner(2);
      const heldPath = unique();
      await register(poor, heldPath);
      const held = await runToEnd(poor, (await createBooks(poor, site)).id);
      expect(held.status).to.equal("held");
      await sleep(800);
      expect(receiver.at(heldPath)).to.deep.equal([]);
      expect(receiver.at(path).length, "no rows.changed for the failed run").to.equal(1);
    });
  });
};

export const webhooksCapability: Capability = { name: "webhooks", register: webhookCases };
