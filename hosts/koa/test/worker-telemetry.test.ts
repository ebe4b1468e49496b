import { fileURLToPath } from "node:url";
import { makeClient, waitForRun } from "@gleaner/conformance";
import { type RunningHost, startHost } from "@gleaner/koa";
import { expect } from "chai";
import { pino } from "pino";
import { freePort } from "./support/free-port.js";
import { spansOf, startOtlpReceiver, until } from "./support/otlp-receiver.js";
import { admin, ownDatabase } from "./support/postgres-admin.js";
import { startPricedList } from "./support/priced-list.js";
import { parseExposition } from "./support/prometheus-text.js";
import { type Spawned, spawnUntil, stopChild } from "./support/spawn-until.js";

const bin = fileURLToPath(new URL("../bin/gleaner.js", import.meta.url));

/**
 * `gleaner worker` as its own process (PostgreSQL + Agenda) next to an API process without a worker:
 * the run the API queued is counted on the worker's /metrics and traced from the worker, over OTLP.
 */
describe("gleaner worker: its metrics and traces for the runs it works", function () {
  this.timeout(90_000);
  const database = `gleaner_worker_${globalThis.crypto.randomUUID().replaceAll("-", "").slice(0, 10)}`;
  let reachable = false;
  let api: RunningHost | undefined;
  let worker: Spawned | undefined;
  let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
  let site: Awaited<ReturnType<typeof startPricedList>>;
  let metricsUrl = "";

  before(async function () {
    const ownUrl = await ownDatabase(this, database);
    reachable = true;
    const url = ownUrl;
    const variables = {
      GLEANER_STORAGE: "postgres",
      GLEANER_QUEUE: "agenda",
      GLEANER_POSTGRES_URL: url.href,
      GLEANER_AGENDA_PROCESS_EVERY_MS: "300",
      GLEANER_ALLOW_PRIVATE_TARGETS: "127.0.0.1/32",
    };
    receiver = await startOtlpReceiver();
    site = await startPricedList(3);
    api = await startHost({
      worker: false,
      config: {
        port: 0,
        host: "127.0.0.1",
        storage: "postgres",
        queue: "agenda",
        allowPrivateTargets: ["127.0.0.1/32"],
        variables,
      },
      logger: pino({ level: "silent" }),
    });
    const port = await freePort();
    metricsUrl = `http://127.0.0.1:${port}/metrics`;
    worker = await spawnUntil(
      [bin, "worker"],
      {
        ...process.env,
        ...variables,
        GLEANER_METRICS_PORT: String(port),
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        OTEL_SERVICE_NAME: "gleaner-worker",
        OTEL_BSP_SCHEDULE_DELAY: "100",
      },
      /worker consuming the run queue/,
    );
  });
  after(async () => {
    await stopChild(worker?.child);
    await api?.close();
    await receiver?.close();
    await site?.close();
    if (reachable) await admin(`drop database if exists ${database} with (force)`);
  });

  it("counts the run it finished on its own /metrics, and exports the run's span tree under its service name", async () => {
    const owner = makeClient(api!.url, await api!.createKey("worked", 5));
    const dataset = (await owner.post("/v1/datasets", site.dataset())).body.dataset;
    const run = await waitForRun(owner, (await owner.post(`/v1/datasets/${dataset.id}/runs`)).body.runId);
    expect(run.status, worker?.stderr()).to.equal("succeeded");

    const metrics = parseExposition(await (await fetch(metricsUrl)).text());
    expect(metrics.value("gleaner_runs_started_total", { kind: "deterministic" })).to.equal(1);
    expect(metrics.value("gleaner_runs_finished_total", { kind: "deterministic", status: "succeeded" })).to.equal(1);
    expect(metrics.value("gleaner_pages_read_total", { outcome: "read", reason: "" })).to.equal(1);
    expect(metrics.value("gleaner_credits_charged_total")).to.equal(1);
    expect(metrics.histogram("gleaner_run_queue_wait_seconds", { kind: "deterministic" }).count).to.equal(1);
    expect(
      metrics.histogram("gleaner_run_duration_seconds", { kind: "deterministic", status: "succeeded" }).count,
    ).to.equal(1);
    // It reads the queue (now empty) and its own connection pool at the scrape.
    expect(metrics.value("gleaner_queue_waiting_runs")).to.equal(0);
    expect(metrics.value("gleaner_db_connections", { state: "idle" })).to.be.at.least(0);

    await until("the worker's run spans", () =>
      spansOf(receiver.received).some((s) => s.name === "run.accept" && s.attributes["gleaner.run.id"] === run.id),
    );
    const spans = spansOf(receiver.received);
    const execute = spans.find((s) => s.name === "run.execute" && s.attributes["gleaner.run.id"] === run.id)!;
    expect(execute.attributes).to.deep.include({ "gleaner.dataset.id": dataset.id });
    const accept = spans.find((s) => s.name === "run.accept" && s.traceId === execute.traceId)!;
    const phases = spans.find((s) => s.spanId === accept.parentSpanId);
    expect(phases?.parentSpanId).to.equal(execute.spanId);
    const resource = JSON.parse(receiver.received[0]!.body.toString("utf8")).resourceSpans[0].resource;
    expect(resource.attributes).to.deep.include({ key: "service.name", value: { stringValue: "gleaner-worker" } });
  });
});
