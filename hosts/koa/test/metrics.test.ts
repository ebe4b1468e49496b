import { startWebhookReceiver, waitForRun, makeClient, type WebhookReceiver } from "@gleaner/conformance";
import { MemoryStoreLive } from "@gleaner/memory";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { once } from "node:events";
import { expect } from "chai";
import { pino } from "pino";
import { ConfigurationError, readConfig, type RunningHost, startHost } from "@gleaner/koa";
import { startPricedList } from "./support/priced-list.js";
import { PromMetrics } from "../src/metrics/prom.js";
import { freePort } from "./support/free-port.js";
import { parseExposition } from "./support/prometheus-text.js";

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
    return parseExposition(await answer.text());
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
    for (
      let i = 0;
      i < 50 && metrics.value("gleaner_webhook_deliveries_total", { outcome: "delivered" }) === undefined;
      i++
    ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      metrics = await scrape();
    }

    expect(metrics.value("gleaner_runs_started_total", { kind: "deterministic" })).to.equal(2);
    expect(metrics.value("gleaner_runs_finished_total", { kind: "deterministic", status: "succeeded" })).to.equal(1);
    expect(metrics.value("gleaner_runs_finished_total", { kind: "deterministic", status: "held" })).to.equal(1);
    expect(metrics.value("gleaner_runs_held_total", { reason: "drift" })).to.equal(1);
    expect(metrics.value("gleaner_pages_read_total", { outcome: "read", reason: "" })).to.equal(2);
    expect(metrics.value("gleaner_credits_charged_total")).to.equal(1);
    expect(
      metrics.histogram("gleaner_run_duration_seconds", { kind: "deterministic", status: "succeeded" }).count,
    ).to.equal(1);
    expect(metrics.histogram("gleaner_run_queue_wait_seconds", { kind: "deterministic" }).count).to.equal(2);
    expect(metrics.value("gleaner_webhook_deliveries_total", { outcome: "delivered" })).to.be.at.least(1);
    expect(
      metrics.value("gleaner_http_requests_total", { operation: "createRun", method: "POST", status: "202" }),
    ).to.equal(2);
    expect(
      metrics.value("gleaner_http_requests_total", { operation: "createDataset", method: "POST", status: "201" }),
    ).to.equal(1);
    expect(
      metrics.histogram("gleaner_http_request_duration_seconds", { operation: "getRun", method: "GET" }).count,
    ).to.be.above(0);
    expect(metrics.names).to.include("gleaner_process_cpu_user_seconds_total");
    // Nothing waits for a worker now: the queue gauges read the store at the scrape.
    expect(metrics.value("gleaner_queue_waiting_runs")).to.equal(0);
    expect(metrics.value("gleaner_queue_oldest_waiting_seconds")).to.equal(0);
  });

  it("counts an unknown route as unmatched, and is not served on the API's port", async () => {
    const answer = await fetch(`${host.url}/metrics`);
    expect(answer.status).to.equal(404);
    const metrics = await scrape();
    expect(
      metrics.value("gleaner_http_requests_total", { operation: "unmatched", method: "GET", status: "404" }),
    ).to.be.at.least(1);
    expect((await fetch(metricsUrl.replace("/metrics", "/other"))).status).to.equal(404);
  });

  it("shows no database series on the memory store, which has no connections", async () => {
    const { names } = await scrape();
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

/**
 * A two-page list that answers its validators with 304, a page that refuses (403): what a run's
 * credit hold, a failed read with its reason and a not-modified read are made of.
 */
const startPagedSite = async () => {
  const server = createServer((request, response) => {
    const path = request.url ?? "/";
    if (path === "/refused.html") return void response.writeHead(403, { "content-type": "text/html" }).end("no");
    if (path !== "/one.html" && path !== "/two.html") return void response.writeHead(404).end();
    const etag = `"${path}"`;
    if (request.headers["if-none-match"] === etag) return void response.writeHead(304, { etag }).end();
    const next = path === "/one.html" ? '<a class="next" href="/two.html">next</a>' : "";
    const items = [1, 2, 3].map((i) => `<li class="item"><b>${path}-${i}</b></li>`).join("");
    response
      .writeHead(200, { "content-type": "text/html", etag })
      .end(`<html><body><ul>${items}</ul>${next}</body></html>`);
  }).listen(0, "127.0.0.1");
  await once(server, "listening");
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    dataset: (page: string) => ({
      name: page,
      columns: [{ name: "label", type: "string", key: true }],
      source: {
        version: 1,
        url: `${base}/${page}`,
        itemSelector: "li.item",
        fields: [{ name: "label", read: { selector: "b" } }],
        identity: { kind: "source-key", field: "label" },
        pagination: { kind: "next-link", selector: "a.next" },
      },
    }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};

describe("Prometheus metrics: holds, failures, deliveries and the queue, by value", function () {
  this.timeout(60_000);
  const hosts: RunningHost[] = [];
  let site: Awaited<ReturnType<typeof startPagedSite>>;
  let receiver: WebhookReceiver;
  const hostWithMetrics = async (worker = true) => {
    const port = await freePort();
    const host = await startHost({
      overrides: { store: MemoryStoreLive },
      worker,
      config: {
        port: 0,
        host: "127.0.0.1",
        allowPrivateTargets: ["127.0.0.1/32"],
        metrics: { host: "127.0.0.1", port },
        webhooks: { timeoutMs: 2_000, pollMs: 50, retryBaseMs: 50 },
      },
      logger: pino({ level: "silent" }),
    });
    hosts.push(host);
    return {
      host,
      scrape: async () => parseExposition(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()),
    };
  };

  before(async () => {
    site = await startPagedSite();
    receiver = await startWebhookReceiver();
  });
  after(async () => {
    for (const host of hosts) await host.close();
    await receiver?.close();
    await site?.close();
  });

  it("counts a credit hold with its duration, a refused read by its reason, 304s as not_modified, and rejected and failed deliveries with their latency", async () => {
    const { host, scrape } = await hostWithMetrics();
    // One credit cannot pay for two pages: the run is held for credits.
    const poor = makeClient(host.url, await host.createKey("poor", 1));
    const unpaid = (await poor.post("/v1/datasets", site.dataset("one.html"))).body.dataset;
    const held = await waitForRun(poor, (await poor.post(`/v1/datasets/${unpaid.id}/runs`)).body.runId);
    expect(held.status).to.equal("held");

    const owner = makeClient(host.url, await host.createKey("rich", 20));
    for (const [path, answer] of [
      ["/rejects", () => 500],
      ["/drops", () => "drop"],
    ] as const) {
      const hook = await owner.post("/v1/webhooks", { url: `${receiver.url}${path}`, events: ["run.finished"] });
      expect(hook.status, JSON.stringify(hook.body)).to.equal(201);
      receiver.expect(path, hook.body.secret, answer);
    }
    const paged = (await owner.post("/v1/datasets", site.dataset("one.html"))).body.dataset;
    for (let i = 0; i < 2; i++) {
      const run = await waitForRun(owner, (await owner.post(`/v1/datasets/${paged.id}/runs`)).body.runId);
      expect(run.status).to.equal("succeeded");
    }
    const refused = (await owner.post("/v1/datasets", site.dataset("refused.html"))).body.dataset;
    const blocked = await waitForRun(owner, (await owner.post(`/v1/datasets/${refused.id}/runs`)).body.runId);
    expect(blocked.status).to.equal("blocked");
    await receiver.waitFor("/rejects", 1);
    await receiver.waitFor("/drops", 1);
    let metrics = await scrape();
    for (
      let i = 0;
      i < 50 && !((metrics.value("gleaner_webhook_deliveries_total", { outcome: "failed" }) ?? 0) > 0);
      i++
    ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      metrics = await scrape();
    }

    expect(metrics.value("gleaner_runs_held_total", { reason: "credits" })).to.equal(1);
    expect(metrics.value("gleaner_runs_held_total", { reason: "drift" })).to.equal(undefined);
    expect(metrics.value("gleaner_runs_finished_total", { kind: "deterministic", status: "held" })).to.equal(1);
    expect(metrics.value("gleaner_runs_finished_total", { kind: "deterministic", status: "blocked" })).to.equal(1);
    const heldDuration = metrics.histogram("gleaner_run_duration_seconds", { kind: "deterministic", status: "held" });
    expect(heldDuration.count).to.equal(1);
    expect(heldDuration.sum).to.be.above(0).and.below(60);
    // Two pages for the held run and the first paid run; the second paid run's two are answered 304.
    expect(metrics.value("gleaner_pages_read_total", { outcome: "read", reason: "" })).to.equal(4);
    expect(metrics.value("gleaner_pages_read_total", { outcome: "not_modified", reason: "" })).to.equal(2);
    expect(metrics.value("gleaner_pages_read_total", { outcome: "failed", reason: "forbidden" })).to.equal(1);
    expect(metrics.value("gleaner_credits_charged_total", {})).to.equal(4);
    for (const outcome of ["rejected", "failed"]) {
      const attempts = metrics.value("gleaner_webhook_deliveries_total", { outcome });
      expect(attempts, outcome).to.be.at.least(1);
      const latency = metrics.histogram("gleaner_webhook_delivery_duration_seconds", { outcome });
      expect(latency.count, outcome).to.equal(attempts);
      expect(latency.sum, outcome)
        .to.be.at.least(0)
        .and.below(attempts * 2);
    }
    expect(metrics.value("gleaner_webhook_deliveries_total", { outcome: "delivered" })).to.equal(undefined);
  });

  it("shows a waiting run and how long the oldest has waited, while no worker takes it", async () => {
    const { host, scrape } = await hostWithMetrics(false);
    const owner = makeClient(host.url, await host.createKey("waiting", 5));
    for (const page of ["one.html", "two.html"]) {
      const dataset = (await owner.post("/v1/datasets", site.dataset(page))).body.dataset;
      expect((await owner.post(`/v1/datasets/${dataset.id}/runs`)).status).to.equal(202);
    }
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const metrics = await scrape();
    expect(metrics.value("gleaner_queue_waiting_runs", {})).to.equal(2);
    expect(metrics.value("gleaner_queue_oldest_waiting_seconds", {})).to.be.at.least(1).and.below(30);
    expect(metrics.value("gleaner_runs_started_total", { kind: "deterministic" })).to.equal(undefined);
  });
});

describe("docs/guides/operating.md's PromQL", () => {
  it("names only series the host registers, each selector only labels the series has", async () => {
    const metrics = new PromMetrics();
    // The pool's series are registered once a store with a pool is up: as on PostgreSQL.
    metrics.watchPool(() => ({ open: 1, idle: 1, waiting: 0, errors: 0 }));
    const registered = (await metrics.registry.getMetricsAsJSON()).map((m) => ({
      name: m.name,
      type: String(m.type),
    }));
    const labelsOf = (name: string) =>
      (metrics.registry.getSingleMetric(name) as unknown as { labelNames: string[] }).labelNames;
    const guide = readFileSync(new URL("../../../docs/guides/operating.md", import.meta.url), "utf8");
    const code = [...guide.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!).join("\n");
    const named = [...code.matchAll(/\b(gleaner_[a-z_]+)(\*|\{[^}]*\})?/g)];
    expect(named.length).to.be.above(20);
    const checked = new Set<string>();
    for (const [, name, rest] of named) {
      if (rest === "*") {
        expect(
          registered.some((m) => m.name.startsWith(name!)),
          `${name}*`,
        ).to.equal(true);
        continue;
      }
      const histogram = registered.find((m) => m.type === "histogram" && name!.startsWith(`${m.name}_`));
      const series = histogram && /_(bucket|sum|count)$/.test(name!) ? histogram.name : name!;
      expect(
        registered.map((m) => m.name),
        `the guide's ${name}`,
      ).to.include(series);
      for (const [, label] of (rest ?? "").matchAll(/([a-z_]+)\s*(?:=~|!=|!~|=)/g)) {
        expect(labelsOf(series), `${name}'s label ${label}`).to.include(label);
      }
      checked.add(series);
    }
    // Every series Gleaner exports is in the guide's table (the process's own by their prefixes).
    const own = registered.filter((m) => !/^gleaner_(process|nodejs)_/.test(m.name)).map((m) => m.name);
    expect(own.filter((name) => !checked.has(name))).to.deep.equal([]);
  });
});
