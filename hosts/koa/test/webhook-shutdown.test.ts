import { booksDataset, startBooksSite, startWebhookReceiver } from "@gleaner/conformance";
import { readConfig, startHost } from "@gleaner/koa";
import { MemoryStoreLive } from "@gleaner/memory";
import { expect } from "chai";
import { pino } from "pino";

// A host closing (a deploy, a scale-down) must not sit out a webhook receiver that does not answer:
// the delivery in flight is dropped (its message stays leased and goes again), not waited on.
describe("closing a host with a webhook delivery in flight", function () {
  this.timeout(30_000);

  it("closes at once rather than waiting out the receiver's 20 s timeout", async () => {
    const site = await startBooksSite();
    const receiver = await startWebhookReceiver();
    const host = await startHost({
      overrides: { store: MemoryStoreLive },
      config: {
        ...readConfig({ GLEANER_WEBHOOK_TIMEOUT_MS: "20000" }),
        port: 0,
        host: "127.0.0.1",
        allowPrivateTargets: ["127.0.0.1/32"],
      },
      logger: pino({ level: "silent" }),
    });
    try {
      const key = await host.createKey("closing", 10);
      const call = async (method: string, path: string, body?: unknown) =>
        (await fetch(`${host.url}${path}`, {
          method,
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        }).then((answer) => answer.json())) as Record<string, any>;
      const { secret } = await call("POST", "/v1/webhooks", { url: `${receiver.url}/hangs`, events: ["run.finished"] });
      receiver.expect("/hangs", secret, () => "hang");
      const { dataset } = await call(
        "POST",
        "/v1/datasets",
        booksDataset(site, "next-link", (b) => void (b.source.maxPages = 1)),
      );
      await call("POST", `/v1/datasets/${dataset.id}/runs`, {});
      await receiver.waitFor("/hangs", 1, 15_000);
      expect(receiver.mostHanging("/hangs")).to.equal(1);

      const closing = performance.now();
      await host.close();
      const tookMs = performance.now() - closing;
      expect(tookMs, "close, in ms").to.be.below(5_000);
    } finally {
      await receiver.close();
      await site.close();
    }
  });
});
