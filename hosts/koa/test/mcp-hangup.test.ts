import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { makeClient } from "@gleaner/conformance";
import { type RunningHost, startHost } from "@gleaner/koa";
import { MemoryStoreLive } from "@gleaner/memory";
import { expect } from "chai";
import { pino } from "pino";

/**
 * An agent that calls start_run and hangs up must not leave the host polling the run for the rest of
 * `waitSeconds` (up to 10 minutes, four requests a second): many such calls would be work without end
 * that nobody reads.
 */
describe("the MCP start_run tool when the caller hangs up", function () {
  this.timeout(60_000);
  let site: Server;
  let host: RunningHost;
  const paths: string[] = [];

  before(async () => {
    // A page that never answers: the run stays running until its deadline.
    site = createServer(() => undefined);
    await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
    const logger = pino(
      { level: "info" },
      { write: (line: string) => void paths.push(String(JSON.parse(line).path ?? "")) },
    );
    host = await startHost({
      overrides: { store: MemoryStoreLive },
      config: { port: 0, host: "127.0.0.1", allowPrivateTargets: ["127.0.0.1/32"], runDeadlineMs: 30_000 },
      logger,
    });
  });
  after(async () => {
    site?.closeAllConnections();
    await new Promise((resolve) => site?.close(resolve));
    await host?.close();
  });

  it("stops polling the run once the caller is gone; the run itself goes on", async () => {
    const key = await host.createKey("hangup-owner", 10);
    const api = makeClient(host.url, key);
    const created = await api.post("/v1/datasets", {
      name: "Never answers",
      columns: [{ name: "text", type: "string", key: true }],
      source: {
        version: 1,
        url: `http://127.0.0.1:${(site.address() as AddressInfo).port}/list`,
        itemSelector: "p",
        fields: [{ name: "text", read: {} }],
        identity: { kind: "source-key", field: "text" },
        pagination: { kind: "none" },
        ignoreRobots: true,
      },
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const hangUp = new AbortController();
    const call = fetch(`${host.url}/mcp`, {
      method: "POST",
      signal: hangUp.signal,
      headers: {
        authorization: `Bearer ${key}`,
        accept: "application/json, text/event-stream",
        "content-type": "application/json",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "start_run", arguments: { datasetId: created.body.dataset.id, waitSeconds: 600 } },
      }),
    }).then((answer) => answer.text());
    const runPolls = () => paths.filter((p) => p.startsWith("/v1/runs/")).length;
    while (runPolls() < 2) await sleep(50);
    hangUp.abort();
    await call.catch(() => undefined);
    await sleep(1_000);
    const atHangUp = runPolls();
    await sleep(2_000);
    expect(runPolls(), "polls of the run after the caller hung up").to.equal(atHangUp);
    const runs = await api.get(`/v1/datasets/${created.body.dataset.id}/runs`);
    expect(runs.body.data[0].status).to.equal("running");
  });
});
