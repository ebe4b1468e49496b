import { makeClient, waitForRun } from "@gleaner/conformance";
import { MemoryStoreLive } from "@gleaner/memory";
import { expect } from "chai";
import { pino } from "pino";
import { readConfig, type RunningHost, startHost } from "@gleaner/koa";
import { type Span, spansOf, startOtlpReceiver, until } from "./support/otlp-receiver.js";
import { startPricedList } from "./support/priced-list.js";

describe("OTLP traces (OTEL_EXPORTER_OTLP_ENDPOINT)", function () {
  this.timeout(60_000);
  let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
  let site: Awaited<ReturnType<typeof startPricedList>>;
  const hosts: RunningHost[] = [];
  const hostWith = async (protocol: "http/json" | "http/protobuf") => {
    const host = await startHost({
      overrides: { store: MemoryStoreLive },
      config: {
        port: 0,
        host: "127.0.0.1",
        allowPrivateTargets: ["127.0.0.1/32"],
        tracing: { url: `${receiver.url}/v1/traces`, protocol, serviceName: "gleaner-test", exportIntervalMs: 100 },
      },
      logger: pino({ level: "silent" }),
    });
    hosts.push(host);
    return host;
  };
  const runOn = async (host: RunningHost) => {
    const key = await host.createKey(`traced-${hosts.length}`, 5);
    const owner = makeClient(host.url, key);
    const dataset = (await owner.post("/v1/datasets", site.dataset())).body.dataset;
    const run = await waitForRun(owner, (await owner.post(`/v1/datasets/${dataset.id}/runs`)).body.runId);
    expect(run.status).to.equal("succeeded");
    return { key, dataset, run };
  };

  before(async () => {
    receiver = await startOtlpReceiver();
    site = await startPricedList(3);
  });
  after(async () => {
    for (const host of hosts) await host.close();
    await receiver?.close();
    await site?.close();
  });

  it("exports a run as one span tree (its phases under run.execute), the request that queued it as its own trace, and never page text, keys or webhook secrets", async () => {
    const host = await hostWith("http/json");
    const key = await host.createKey("traced-tree", 5);
    const owner = makeClient(host.url, key);
    const hook = await owner.post("/v1/webhooks", { url: `${receiver.url}/hook`, events: ["run.finished"] });
    expect(hook.status).to.equal(201);
    const webhookSecret: string = hook.body.secret;
    const dataset = (await owner.post("/v1/datasets", site.dataset())).body.dataset;
    const run = await waitForRun(owner, (await owner.post(`/v1/datasets/${dataset.id}/runs`)).body.runId);
    expect(run.status).to.equal("succeeded");
    const json = () => receiver.received.filter((r) => r.contentType.includes("json"));
    await until("the run's spans", () =>
      spansOf(json()).some((s) => s.name === "run.execute" && s.attributes["gleaner.run.id"] === run.id),
    );
    const spans = spansOf(json());
    const execute = spans.find((s) => s.name === "run.execute" && s.attributes["gleaner.run.id"] === run.id)!;
    expect(execute.attributes).to.deep.include({
      "gleaner.dataset.id": dataset.id,
      "gleaner.run.kind": "deterministic",
    });
    const tree = spans.filter((s) => s.traceId === execute.traceId);
    const byId = new Map(tree.map((s) => [s.spanId, s]));
    /** The names from a span's parent up to its trace's root; every parent is in the same trace. */
    const ancestry = (span: Span): string[] => {
      if (span.parentSpanId === "") return [];
      const parent = byId.get(span.parentSpanId);
      expect(parent, `${span.name}'s parent ${span.parentSpanId}`).to.not.equal(undefined);
      return [parent!.name, ...ancestry(parent!)];
    };
    const named = (name: string) => tree.find((s) => s.name === name)!;
    // The worker's delivery is the trace's root; the run's span under it; each phase under the run's.
    expect(ancestry(execute)).to.deep.equal(["RunWorker.executeWithDeadline"]);
    for (const phase of ["run.pin", "run.read", "run.validate", "run.accept"]) {
      expect(named(phase), phase).to.not.equal(undefined);
      expect(ancestry(named(phase)).slice(-2), phase).to.deep.equal(["run.execute", "RunWorker.executeWithDeadline"]);
      expect(named(phase).parentSpanId, phase).to.equal(named("run.phases").spanId);
    }
    expect(ancestry(named("run.readPage"))[0]).to.equal("run.read");
    expect(ancestry(named("run.reconcile"))[0]).to.equal("run.accept");
    for (const phase of tree.filter((s) => s.name.startsWith("run."))) {
      expect(phase === execute || ancestry(phase).includes("run.execute"), phase.name).to.equal(true);
      expect(phase.attributes["gleaner.run.id"], phase.name).to.equal(run.id);
    }
    // The request that queued the run is a trace of its own (the run starts when a worker takes it,
    // maybe in another process), and names the run it queued.
    const request = spans.find((s) => s.name === "http createRun" && s.attributes["gleaner.run.id"] === run.id);
    expect(request?.attributes).to.deep.include({
      "http.request.method": "POST",
      "http.route": "/v1/datasets/{datasetId}/runs",
      "gleaner.dataset.id": dataset.id,
    });
    expect(request!.parentSpanId).to.equal("");
    expect(request!.traceId).to.not.equal(execute.traceId);
    expect(spans.find((s) => s.name === "http createWebhook")?.parentSpanId).to.equal("");
    // What a page said and what authenticates a request or signs a delivery are never in a span.
    const secrets = [key, webhookSecret, webhookSecret.replace(/^whsec_/, ""), "item-1", "2.50"];
    for (const span of spans) {
      for (const [name, value] of Object.entries(span.attributes)) {
        for (const secret of secrets) expect(String(value), `${span.name} ${name}`).to.not.contain(secret);
      }
    }
    const sent = Buffer.concat(receiver.received.map((r) => r.body)).toString("utf8");
    for (const secret of secrets) expect(sent).to.not.contain(secret);
    expect(JSON.parse(json()[0]!.body.toString("utf8")).resourceSpans[0].resource.attributes).to.deep.include({
      key: "service.name",
      value: { stringValue: "gleaner-test" },
    });
  });

  it("sends OTLP protobuf unless told http/json, as OpenTelemetry's exporters do", async () => {
    const host = await hostWith("http/protobuf");
    const before = receiver.received.length;
    await runOn(host);
    const binary = () => receiver.received.slice(before).filter((r) => r.contentType === "application/x-protobuf");
    await until("a protobuf export", () => binary().some((r) => r.body.includes("run.accept")));
    expect(binary().some((r) => r.body.includes("gleaner.run.id"))).to.equal(true);
  });

  it("reads OpenTelemetry's own variables: the endpoint, the protocol, the service name and the export delay", () => {
    expect(readConfig({}).tracing).to.equal(undefined);
    expect(readConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/" }).tracing).to.deep.equal({
      url: "http://collector:4318/v1/traces",
      protocol: "http/protobuf",
      serviceName: "gleaner",
      exportIntervalMs: 5000,
    });
    expect(
      readConfig({
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://collector:4318/custom/traces",
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        OTEL_SERVICE_NAME: "gleaner-eu",
        OTEL_BSP_SCHEDULE_DELAY: "1000",
      }).tracing,
    ).to.deep.equal({
      url: "http://collector:4318/custom/traces",
      protocol: "http/json",
      serviceName: "gleaner-eu",
      exportIntervalMs: 1000,
    });
  });
});
