import { startWebhookReceiver, waitForRun, makeClient, type WebhookReceiver } from "@gleaner/conformance";
import { MemoryStoreLive } from "@gleaner/memory";
import { expect } from "chai";
import { pino } from "pino";
import { ConfigurationError, readConfig, type RunningHost, startHost } from "@gleaner/koa";
import { startPricedList } from "./support/priced-list.js";
import { freePort } from "./support/free-port.js";

/** Prometheus text as `name{labels}` → value, labels as written (sorted by prom-client). */
const parse = (text: string): Map<string, number> =>
  new Map(
    text
      .split("\n")
      .filter((line) => line !== "" && !line.startsWith("#"))
      .map((line) => {
        const at = line.lastIndexOf(" ");
        return [line.slice(0, at), Number(line.slice(at + 1))] as const;
      }),
  );

describe("Prometheus metrics (GLEANER_METRICS_PORT)", function () {
  this.timeout(60_000);
  let host: RunningHost;
  let site: Awaited<ReturnType<typeof startPricedList>>;
  let receiver: WebhookReceiver;
  let metricsUrl: string;
  const scrape = async () => {
    const answer = await fetch(metricsUrl);
    expect(answer.status).to.equal(200);
    expect(answer.headers.get("content-type")).to.contain("text/plain");
    return parse(await answer.text());
  };

  before(async () => {
    site = await startPricedList(12);
    receiver = await startWebhookReceiver();
    const port = await freePort();
    metricsUrl = `http://127.0.0.1:${port}/metrics`;
    host = await startHost({
      overrides: { store: MemoryStoreLive },
      config: {
        port: 0,
        host: "127.0.0.1",
        allowPrivateTargets: ["127.0.0.1/32"],
        metrics: { host: "127.0.0.1", port },
        webhooks: { timeoutMs: 2_000, pollMs: 100, retryBaseMs: 50 },
      },
      logger: pino({ level: "silent" }),
    });
  });
  after(async () => {
    await host?.close();
    await receiver?.close();
    await site?.close();
  });

  it("counts a run, its page, its credit, a hold, a webhook delivery and the requests, by their labels", async () => {
    const owner = makeClient(host.url, await host.createKey("metered", 5));
    const registered = await owner.post("/v1/webhooks", { url: `${receiver.url}/hook`, events: ["run.finished"] });
    receiver.expect("/hook", registered.body.secret);
    const dataset = (await owner.post("/v1/datasets", site.dataset())).body.dataset;
    const started = await owner.post(`/v1/datasets/${dataset.id}/runs`);
    expect(started.status, JSON.stringify(started.body)).to.equal(202);
    const first = await waitForRun(owner, started.body.runId);
    expect(first.status).to.equal("succeeded");
    // A redesign drops every price: the next run is held for drift.
    site.setPriced(0);
    const second = await waitForRun(owner, (await owner.post(`/v1/datasets/${dataset.id}/runs`)).body.runId);
    expect(second.status).to.equal("held");
    await receiver.waitFor("/hook", 1);
    // The delivery is counted once its attempt is recorded, a moment after the receiver saw it.
    let metrics = await scrape();
    for (let i = 0; i < 50 && !metrics.has('gleaner_webhook_deliveries_total{outcome="delivered"}'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      metrics = await scrape();
    }

    expect(metrics.get('gleaner_runs_started_total{kind="deterministic"}')).to.equal(2);
    expect(metrics.get('gleaner_runs_finished_total{kind="deterministic",status="succeeded"}')).to.equal(1);
    expect(metrics.get('gleaner_runs_finished_total{kind="deterministic",status="held"}')).to.equal(1);
    expect(metrics.get('gleaner_runs_held_total{reason="drift"}')).to.equal(1);
    expect(metrics.get('gleaner_pages_read_total{outcome="read",reason=""}')).to.equal(2);
    expect(metrics.get("gleaner_credits_charged_total")).to.equal(1);
    expect(metrics.get('gleaner_run_duration_seconds_count{kind="deterministic",status="succeeded"}')).to.equal(1);
    expect(metrics.get('gleaner_run_queue_wait_seconds_count{kind="deterministic"}')).to.equal(2);
    expect(metrics.get('gleaner_webhook_deliveries_total{outcome="delivered"}')).to.be.at.least(1);
    expect(metrics.get('gleaner_http_requests_total{operation="createRun",method="POST",status="202"}')).to.equal(2);
    expect(metrics.get('gleaner_http_requests_total{operation="createDataset",method="POST",status="201"}')).to.equal(
      1,
    );
    expect(metrics.get('gleaner_http_request_duration_seconds_count{operation="getRun",method="GET"}')).to.be.above(0);
    expect([...metrics.keys()].some((k) => k.startsWith("gleaner_process_cpu_user_seconds_total"))).to.equal(true);
    // Nothing waits for a worker now: the queue gauges read the store at the scrape.
    expect(metrics.get("gleaner_queue_waiting_runs")).to.equal(0);
    expect(metrics.get("gleaner_queue_oldest_waiting_seconds")).to.equal(0);
  });

  it("counts an unknown route as unmatched, and is not served on the API's port", async () => {
    const answer = await fetch(`${host.url}/metrics`);
    expect(answer.status).to.equal(404);
    const metrics = await scrape();
    expect(metrics.get('gleaner_http_requests_total{operation="unmatched",method="GET",status="404"}')).to.be.at.least(
      1,
    );
    expect((await fetch(metricsUrl.replace("/metrics", "/other"))).status).to.equal(404);
  });

  it("shows no database series on the memory store, which has no connections", async () => {
    const names = [...(await scrape()).keys()];
    expect(names.filter((name) => name.startsWith("gleaner_db_"))).to.deep.equal([]);
  });

  it("is off unless GLEANER_METRICS_PORT is set; GLEANER_METRICS_HOST defaults to loopback; a bad port names itself", () => {
    expect(readConfig({}).metrics).to.equal(undefined);
    expect(readConfig({ GLEANER_METRICS_PORT: "9464" }).metrics).to.deep.equal({ host: "127.0.0.1", port: 9464 });
    expect(readConfig({ GLEANER_METRICS_PORT: "9464", GLEANER_METRICS_HOST: "0.0.0.0" }).metrics).to.deep.equal({
      host: "0.0.0.0",
      port: 9464,
    });
    expect(() => readConfig({ GLEANER_METRICS_PORT: "http" }))
      .to.throw(ConfigurationError)
      .with.property("message")
      .that.contains("GLEANER_METRICS_PORT");
  });
});
