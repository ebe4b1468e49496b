import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { makeClient, publishersDataset, type ResearchSite, scriptFor, startResearchSite } from "@gleaner/conformance";
import { LanguageModel, type LanguageModelService, ModelServerFailed, ReplayLanguageModelLive } from "@gleaner/core";
import { MemoryStoreLive } from "@gleaner/memory";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import { expect } from "chai";
import { pino } from "pino";
import { type RunningHost, startHost } from "@gleaner/koa";

/** One log format: the core's run lifecycle lines reach the host's pino logger with their fields. */
describe("logs", function () {
  this.timeout(60_000);
  let host: RunningHost;
  let site: Server;
  const lines: Array<Record<string, unknown>> = [];
  before(async () => {
    site = createServer((_request, response) => {
      response.writeHead(200, { "content-type": "text/html" });
      response.end('<ul><li class="item"><b>one</b></li><li class="item"><b>two</b></li></ul>');
    }).listen(0, "127.0.0.1");
    await new Promise((resolve) => site.once("listening", resolve));
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    host = await startHost({
      overrides: { store: MemoryStoreLive },
      config: { port: 0, host: "127.0.0.1", allowPrivateTargets: ["127.0.0.1/32"] },
      logger: pino({ level: "debug" }, sink),
    });
  });
  after(async () => {
    await host.close();
    site.close();
  });

  it("never prints a rejected value whole: a 900 KB name is logged as its first bytes and its size", async () => {
    const key = await host.createKey("bounded-logs", 5);
    const before = lines.length;
    const answer = await fetch(`${host.url}/v1/datasets`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "n".repeat(900_000), columns: [], source: {} }),
    });
    expect(answer.status).to.equal(422);
    const written = lines.slice(before).map((line) => JSON.stringify(line));
    const mentioning = written.filter((line) => line.includes("nnnnnnnn"));
    expect(mentioning.length, "the rejection is logged at debug").to.be.above(0);
    for (const line of written) expect(line.length).to.be.below(8 * 1024);
    expect(mentioning.join("")).to.match(/cut: 9\d{5} bytes in all/);
  });

  it("logs a run queued, started (with the pid), each page read at debug, and accepted with counts and credits", async () => {
    const key = await host.createKey("logged", 5);
    const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    const url = `http://127.0.0.1:${(site.address() as AddressInfo).port}/list.html`;
    const created = await fetch(`${host.url}/v1/datasets`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        name: "Logged",
        columns: [{ name: "label", type: "string", key: true }],
        source: {
          version: 1,
          url,
          itemSelector: "li.item",
          fields: [{ name: "label", read: { selector: "b" } }],
          identity: { kind: "source-key", field: "label" },
          pagination: { kind: "none" },
        },
      }),
    });
    const datasetId = ((await created.json()) as { dataset: { id: string } }).dataset.id;
    const started = await fetch(`${host.url}/v1/datasets/${datasetId}/runs`, { method: "POST", headers });
    const { runId } = (await started.json()) as { runId: string };
    const find = (msg: string) => lines.find((l) => l.msg === msg && l.runId === runId);
    for (let i = 0; i < 200 && !find("run accepted"); i++) await new Promise((r) => setTimeout(r, 50));

    expect(find("run queued")).to.include({ datasetId, level: 30 });
    expect(find("run started")).to.include({ pid: process.pid, datasetId });
    expect(find("page read")).to.include({ url, records: 2, level: 20 });
    expect(find("run accepted")).to.include({ new: 2, changed: 0, gone: 0, pages: 1, creditsCharged: 1 });
    // The HTTP lines share the logger and never carry the key.
    expect(lines.some((l) => l.msg === "request" && l.path === "/v1/datasets")).to.equal(true);
    expect(JSON.stringify(lines)).not.to.contain(key);
  });
});

/** Research runs are logged like deterministic ones: started, and how they ended with the upstream status. */
describe("logs of a research run", function () {
  this.timeout(60_000);
  let host: RunningHost;
  let site: ResearchSite;
  let sink: Writable;
  const lines: Array<Record<string, unknown>> = [];
  before(async () => {
    site = await startResearchSite();
    sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    // A model server that keeps answering 503.
    const failing: LanguageModelService = {
      provider: "openai-compatible",
      modelId: "m",
      generate: () =>
        Effect.fail(new ModelServerFailed({ message: "The model server failed (HTTP 503).", status: 503 })),
    };
    host = await startHost({
      overrides: { store: MemoryStoreLive, model: Layer.succeed(LanguageModel, failing) },
      config: { port: 0, host: "127.0.0.1", allowPrivateTargets: ["127.0.0.1/32"] },
      logger: pino({ level: "info" }, sink),
    });
  });
  after(async () => {
    await host.close();
    await site.close();
  });

  it("logs the run started and failed, naming the server's status, never the key", async () => {
    const key = await host.createKey("research-logged", 5);
    const client = makeClient(host.url, key);
    const datasetId = (await client.post("/v1/datasets", publishersDataset(site))).body.dataset.id as string;
    const started = await client.post(`/v1/datasets/${datasetId}/runs`, { kind: "research" });
    const runId = started.body.runId as string;
    for (let i = 0; i < 200; i++) {
      if ((await client.get(`/v1/runs/${runId}`)).body.run.status === "failed") break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const mine = lines.filter((line) => line.runId === runId);
    expect(mine.map((line) => line.msg)).to.include.members(["run started", "run failed"]);
    expect(mine.find((line) => line.msg === "run started")).to.deep.include({ kind: "research" });
    expect(String(mine.find((line) => line.msg === "run failed")?.error)).to.contain("model server failed (HTTP 503)");
    expect(JSON.stringify(lines)).to.not.contain(key);
  });

  it("logs a research run's acceptance with its run, dataset and kind, its counts and credits", async () => {
    const accepting = await startHost({
      overrides: { store: MemoryStoreLive, model: ReplayLanguageModelLive(scriptFor(site)) },
      config: { port: 0, host: "127.0.0.1", allowPrivateTargets: ["127.0.0.1/32"] },
      logger: pino({ level: "info" }, sink),
    });
    try {
      const client = makeClient(accepting.url, await accepting.createKey("research-accepted", 5));
      const datasetId = (await client.post("/v1/datasets", publishersDataset(site))).body.dataset.id as string;
      const runId = (await client.post(`/v1/datasets/${datasetId}/runs`, { kind: "research" })).body.runId as string;
      const accepted = () => lines.find((line) => line.msg === "run accepted" && line.runId === runId);
      for (let i = 0; i < 200 && !accepted(); i++) await new Promise((resolve) => setTimeout(resolve, 25));
      expect(accepted()).to.deep.include({ datasetId, kind: "research", new: 3, pages: 2, creditsCharged: 2 });
    } finally {
      await accepting.close();
    }
  });
});
