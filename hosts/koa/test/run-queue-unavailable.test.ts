import { MemoryRunQueueLive, MemoryStoreLive } from "@gleaner/memory";
import { type RunningHost, startHost } from "@gleaner/koa";
import { expect } from "chai";
import { pino } from "pino";

/** A queue that refuses jobs answers 503 and leaves no run queued behind. */
describe("POST /v1/datasets/{id}/runs when the queue refuses", () => {
  let host: RunningHost;
  before(async () => {
    host = await startHost({
      // No worker and room for one job: the second enqueue is refused.
      worker: false,
      overrides: { store: MemoryStoreLive, queue: MemoryRunQueueLive({ capacity: 1 }) },
      config: { port: 0, host: "127.0.0.1" },
      logger: pino({ level: "silent" }),
    });
  });
  after(() => host.close());

  it("answers 503 queue_unavailable and finishes the stored run as failed, charging nothing", async () => {
    const key = await host.createKey(`owner-${globalThis.crypto.randomUUID()}`, 10);
    const call = (method: string, path: string, body?: unknown) =>
      fetch(`${host.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: body === undefined ? null : JSON.stringify(body),
      }).then(async (r) => ({ status: r.status, body: await r.json() }));
    const dataset = (name: string) => ({
      name,
      columns: [{ name: "title", type: "string", key: true }],
      source: {
        version: 1,
        url: "https://books.example/",
        itemSelector: "article",
        fields: [{ name: "title", read: { selector: "h3" } }],
        identity: { kind: "source-key", field: "title" },
        pagination: { kind: "none" },
      },
    });
    const a = (await call("POST", "/v1/datasets", dataset("a"))).body.dataset.id;
    const b = (await call("POST", "/v1/datasets", dataset("b"))).body.dataset.id;
    expect((await call("POST", `/v1/datasets/${a}/runs`)).status).to.equal(202);
    const refused = await call("POST", `/v1/datasets/${b}/runs`);
    expect(refused.status).to.equal(503);
    expect(refused.body.error.code).to.equal("queue_unavailable");
    const runs = (await call("GET", `/v1/datasets/${b}/runs`)).body.data;
    expect(runs).to.have.length(1);
    expect(runs[0].status).to.equal("failed");
    expect(runs[0].error).to.contain("queue");
    expect((await call("GET", "/v1/usage")).body.balance).to.equal(10);
  });
});
