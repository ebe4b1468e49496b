import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { makeClient, waitForRun } from "@gleaner/conformance";
import { MemoryStoreLive } from "@gleaner/memory";
import { expect } from "chai";
import { pino } from "pino";
import { readConfig, type RunningHost, startHost } from "@gleaner/koa";
import { startPricedList } from "./support/priced-list.js";

interface Received {
  readonly contentType: string;
  readonly body: Buffer;
}

/** A loopback OTLP/HTTP trace receiver: keeps every export it is sent at /v1/traces. */
const startReceiver = async () => {
  const received: Received[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      if (request.method === "POST" && request.url === "/v1/traces") {
        received.push({ contentType: request.headers["content-type"] ?? "", body: Buffer.concat(chunks) });
      }
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};

interface Span {
  readonly name: string;
  readonly traceId: string;
  readonly attributes: Record<string, unknown>;
}

/** The spans of OTLP/JSON exports, each with its attributes as plain values. */
const spansOf = (received: ReadonlyArray<Received>): Span[] =>
  received.flatMap((r) =>
    (JSON.parse(r.body.toString("utf8")).resourceSpans ?? []).flatMap((rs: any) =>
      rs.scopeSpans.flatMap((ss: any) =>
        ss.spans.map((span: any) => ({
          name: span.name,
          traceId: span.traceId,
          attributes: Object.fromEntries(
            (span.attributes ?? []).map((a: any) => [a.key, Object.values(a.value ?? {})[0]]),
          ),
        })),
      ),
    ),
  );

const until = async (what: string, check: () => boolean, ms = 20_000) => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

describe("OTLP traces (OTEL_EXPORTER_OTLP_ENDPOINT)", function () {
  this.timeout(60_000);
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
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
    receiver = await startReceiver();
    site = await startPricedList(3);
  });
  after(async () => {
    for (const host of hosts) await host.close();
    await receiver?.close();
    await site?.close();
  });

  it("exports a run's phases as one trace with its run and dataset ids, and each request's span, never page text or keys", async () => {
    const host = await hostWith("http/json");
    const { key, dataset, run } = await runOn(host);
    const json = () => receiver.received.filter((r) => r.contentType.includes("json"));
    await until("the run's spans", () => spansOf(json()).some((s) => s.name === "run.accept"));
    const spans = spansOf(json());
    const execute = spans.find((s) => s.name === "run.execute" && s.attributes["gleaner.run.id"] === run.id);
    expect(execute?.attributes).to.deep.include({
      "gleaner.dataset.id": dataset.id,
      "gleaner.run.kind": "deterministic",
    });
    const phases = spans.filter((s) => s.traceId === execute?.traceId).map((s) => s.name);
    expect(phases).to.include.members(["run.read", "run.accept"]);
    for (const phase of spans.filter((s) => s.traceId === execute?.traceId && s.name.startsWith("run."))) {
      expect(phase.attributes["gleaner.run.id"], phase.name).to.equal(run.id);
    }
    const request = spans.find((s) => s.name === "http createRun");
    expect(request?.attributes).to.deep.include({
      "http.request.method": "POST",
      "http.route": "/v1/datasets/{datasetId}/runs",
    });
    // What a page said and what authenticates a request are never in a span.
    const sent = Buffer.concat(receiver.received.map((r) => r.body)).toString("utf8");
    expect(sent).to.not.contain("item-1").and.not.contain("2.50").and.not.contain(key);
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
