import { type Client, makeClient, waitForRun } from "@gleaner/conformance";
import { type RunningHost, startHost } from "@gleaner/koa";
import { MemoryRunQueueLive, MemoryStoreLive } from "@gleaner/memory";
import { expect } from "chai";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { pino } from "pino";

/**
 * Per-owner limits (issue 16): failed runs cost nothing, so without limits one credit buys endless
 * fetching. Each limit answers 429 `rate_limited` with Retry-After and the usual error body, and
 * one owner's limit never touches another owner.
 */
describe("per-owner limits: 429 rate_limited with Retry-After", function () {
  this.timeout(60_000);
  let site: Server;
  let siteUrl: string;
  let host: RunningHost;

  before(async () => {
    // /hang never answers (a run stays running until its deadline); /ok is one page with one
    // item; anything else (/gone) fails at once.
    site = createServer((req, res) => {
      if (req.url === "/ok")
        res.writeHead(200, { "content-type": "text/html" }).end("<html><body><p><b>one</b></p></body></html>");
      else if (req.url !== "/hang") res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
    siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    host = await startHost({
      overrides: { store: MemoryStoreLive, queue: MemoryRunQueueLive() },
      config: {
        port: 0,
        host: "127.0.0.1",
        allowPrivateTargets: ["127.0.0.1"],
        runDeadlineMs: 3_000,
        ownerLimits: { maxActiveRuns: 2, maxRunsPerHour: 3, maxDatasets: 4, maxWebhooks: 3, maxApiKeys: 3 },
      },
      logger: pino({ level: "silent" }),
    });
  });
  after(async () => {
    site?.closeAllConnections();
    await new Promise((resolve) => site?.close(resolve));
    await host?.close();
  });

  const owner = async (): Promise<Client> =>
    makeClient(host.url, await host.createKey(`limits-${globalThis.crypto.randomUUID()}`, 100));
  const dataset = async (client: Client, path: string, read = "p"): Promise<string> => {
    const created = await client.post("/v1/datasets", {
      name: `limits ${globalThis.crypto.randomUUID().slice(0, 8)}`,
      columns: [{ name: "text", type: "string", key: true }],
      source: {
        version: 1,
        url: `${siteUrl}${path}`,
        itemSelector: "p",
        fields: [{ name: "text", read: { selector: read } }],
        identity: { kind: "source-key", field: "text" },
        pagination: { kind: "none" },
        ignoreRobots: true,
      },
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    return created.body.dataset.id;
  };
  const expectLimited = (
    answer: { status: number; body: any; headers: Headers },
    retryAfter: (s: number) => boolean,
  ) => {
    expect(answer.status, JSON.stringify(answer.body)).to.equal(429);
    expect(answer.body.error.code).to.equal("rate_limited");
    expect(answer.body.error.message).to.be.a("string").and.not.equal("");
    const seconds = Number(answer.headers.get("retry-after"));
    expect(retryAfter(seconds), `Retry-After ${seconds}`).to.equal(true);
    expect(answer.headers.get("x-credits-remaining")).to.equal("100");
  };

  it("refuses a dataset beyond GLEANER_OWNER_MAX_DATASETS", async () => {
    const client = await owner();
    for (let i = 0; i < 4; i++) await dataset(client, "/gone");
    const refused = await client.post("/v1/datasets", {
      name: "one too many",
      columns: [{ name: "text", type: "string", key: true }],
      source: {
        version: 1,
        url: `${siteUrl}/gone`,
        itemSelector: "p",
        fields: [{ name: "text", read: { selector: "p" } }],
        identity: { kind: "source-key", field: "text" },
        pagination: { kind: "none" },
      },
    });
    expectLimited(refused, (s) => s === 3600);
    expect((await (await owner()).post("/v1/datasets", { name: "" })).status, "another owner is not limited").to.equal(
      422,
    );
  });

  it("refuses a run beyond GLEANER_OWNER_MAX_ACTIVE_RUNS while two are running", async () => {
    const client = await owner();
    const ids = [await dataset(client, "/hang"), await dataset(client, "/hang"), await dataset(client, "/hang")];
    const started = [
      await client.post(`/v1/datasets/${ids[0]}/runs`),
      await client.post(`/v1/datasets/${ids[1]}/runs`),
    ];
    for (const answer of started) expect(answer.status).to.equal(202);
    expectLimited(await client.post(`/v1/datasets/${ids[2]}/runs`), (s) => s > 0 && s <= 60);
    // Another owner still gets a run in.
    const other = await owner();
    expect((await other.post(`/v1/datasets/${await dataset(other, "/gone")}/runs`)).status).to.equal(202);
    // Once the deadline ends them, the slot is free again.
    for (const answer of started) await waitForRun(client, answer.body.runId, 30_000);
    expect((await client.post(`/v1/datasets/${ids[2]}/runs`)).status).to.equal(202);
  });

  it("refuses a run beyond GLEANER_OWNER_MAX_RUNS_PER_HOUR, failed runs included", async () => {
    const client = await owner();
    const id = await dataset(client, "/gone");
    for (let i = 0; i < 3; i++) {
      const started = await client.post(`/v1/datasets/${id}/runs`);
      expect(started.status, JSON.stringify(started.body)).to.equal(202);
      expect((await waitForRun(client, started.body.runId, 30_000)).status).to.not.equal("succeeded");
    }
    expectLimited(await client.post(`/v1/datasets/${id}/runs`), (s) => s > 3500 && s <= 3600);
  });

  it("judges a run request in one order: the dataset (404), then the credits (402), then the limits (429)", async () => {
    const client = makeClient(host.url, await host.createKey(`limits-${globalThis.crypto.randomUUID()}`, 1));
    const gone = await dataset(client, "/gone");
    const ok = await dataset(client, "/ok", "b");
    // Two failed runs (free) and one accepted run of one page (the last credit): the hour's limit
    // of three is reached and the balance is 0.
    for (const id of [gone, gone, ok]) {
      const started = await client.post(`/v1/datasets/${id}/runs`);
      expect(started.status, JSON.stringify(started.body)).to.equal(202);
      const ended = await waitForRun(client, started.body.runId, 30_000);
      expect(ended.status, JSON.stringify(ended)).to.equal(id === ok ? "succeeded" : "failed");
    }
    const refused = await client.post(`/v1/datasets/${ok}/runs`);
    expect(refused.status, JSON.stringify(refused.body)).to.equal(402);
    expect(refused.body.error.code).to.equal("insufficient_credits");
    const unknown = await client.post(`/v1/datasets/${globalThis.crypto.randomUUID()}/runs`);
    expect(unknown.status, JSON.stringify(unknown.body)).to.equal(404);
  });

  it("refuses a webhook beyond GLEANER_OWNER_MAX_WEBHOOKS (each event goes to every one), until one is deleted", async () => {
    const client = await owner();
    const register = () =>
      client.post("/v1/webhooks", { url: "https://hooks.example.com/gleaner", events: ["run.finished"] });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const created = await register();
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      ids.push(created.body.webhook.id);
    }
    expectLimited(await register(), (s) => s === 3600);
    expect((await client.get("/v1/webhooks")).body.webhooks).to.have.length(3);
    expect(
      (await (await owner()).post("/v1/webhooks", { url: "https://hooks.example.com/other", events: ["run.finished"] }))
        .status,
      "another owner is not limited",
    ).to.equal(201);
    expect((await client.request("DELETE", `/v1/webhooks/${ids[0]}`)).status).to.equal(204);
    expect((await register()).status).to.equal(201);
  });

  it("refuses an API key beyond GLEANER_OWNER_MAX_KEYS (any key may mint keys), until one is revoked", async () => {
    const client = await owner();
    for (let i = 0; i < 2; i++) expect((await client.post("/v1/keys", { name: `k${i}` })).status).to.equal(201);
    expectLimited(await client.post("/v1/keys", { name: "one too many" }), (s) => s === 3600);
    const keys = (await client.get("/v1/keys")).body.keys as Array<{ id: string; name: string | null }>;
    expect(keys).to.have.length(3);
    expect((await client.request("DELETE", `/v1/keys/${keys.find((k) => k.name === "k0")!.id}`)).status).to.equal(204);
    expect((await client.post("/v1/keys", {})).status).to.equal(201);
  });
});
