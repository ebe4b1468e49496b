import { type Client, makeClient, waitForRun } from "@gleaner/conformance";
import { type RunningHost, startHost } from "@gleaner/koa";
import { MemoryRunQueueLive, MemoryStoreLive } from "@gleaner/memory";
import { expect } from "chai";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { pino } from "pino";

/**
 * Hostile pages for static reads (issue 16): each run must end with its documented reason, and the
 * API must keep answering while it works: /healthz is polled throughout and its slowest answer is
 * printed and bounded. Parsing and extraction share the thread that serves HTTP, so a page that
 * took the parser a minute (deep nesting) froze every endpoint before the document limits.
 */
const healthzBoundMs = 1_000;
const runDeadlineMs = 4_000;

const deep = (depth: number) => `<html><body>${"<div>".repeat(depth)}x${"</div>".repeat(depth)}</body></html>`;
const filler = Buffer.alloc(64 * 1024, "<p>hostile</p>");

/** Writes 64 KiB chunks as fast as the socket takes them, for ever (or until the reader leaves). */
const endless = (res: ServerResponse) => {
  const pump = () => {
    while (!res.destroyed && res.write(filler));
  };
  res.on("drain", pump);
  pump();
};

const routes: Record<string, (res: ServerResponse) => void> = {
  "/deep": (res) => res.end(deep(200_000)),
  "/huge": (res) => {
    res.setHeader("content-length", String(11 * 1024 * 1024));
    endless(res);
  },
  "/endless": endless,
  "/trickle": (res) => {
    res.write("<html><body>");
    const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write("<p>")), 200);
  },
  "/slow-headers": () => {},
};

describe("hostile pages (static reads): the API stays responsive and runs end with their reason", function () {
  this.timeout(120_000);
  let site: Server;
  let siteUrl: string;
  let host: RunningHost;
  let client: Client;
  const slowest: Record<string, number> = {};

  before(async () => {
    site = createServer((req, res) => {
      res.setHeader("content-type", "text/html; charset=utf-8");
      const route = routes[req.url ?? ""];
      if (route) route(res);
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
    siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    host = await startHost({
      overrides: { store: MemoryStoreLive, queue: MemoryRunQueueLive() },
      config: { port: 0, host: "127.0.0.1", allowPrivateTargets: ["127.0.0.1"], runDeadlineMs },
      logger: pino({ level: "silent" }),
    });
    client = makeClient(host.url, await host.createKey(`hostile-${globalThis.crypto.randomUUID()}`, 100));
  });
  after(async () => {
    console.log(`      slowest /healthz answer while each run worked (ms): ${JSON.stringify(slowest)}`);
    await host?.close();
    site?.closeAllConnections();
    await new Promise((resolve) => site?.close(resolve));
  });

  /** Runs a one-page dataset over `path` while polling /healthz; returns the run and its trace. */
  const runAgainst = async (path: string) => {
    const created = await client.post("/v1/datasets", {
      name: `hostile ${path} ${globalThis.crypto.randomUUID().slice(0, 8)}`,
      columns: [{ name: "text", type: "string", key: true }],
      source: {
        version: 1,
        url: `${siteUrl}${path}`,
        itemSelector: "p",
        fields: [{ name: "text", read: { selector: "p" } }],
        identity: { kind: "source-key", field: "text" },
        pagination: { kind: "none" },
        ignoreRobots: true,
      },
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const started = await client.post(`/v1/datasets/${created.body.dataset.id}/runs`);
    expect(started.status, JSON.stringify(started.body)).to.equal(202);
    let working = true;
    let worst = 0;
    const poll = (async () => {
      while (working) {
        const sent = performance.now();
        const answer = await fetch(`${host.url}/healthz`);
        await answer.arrayBuffer();
        worst = Math.max(worst, performance.now() - sent);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    const run = await waitForRun(client, started.body.runId, 60_000).finally(() => {
      working = false;
    });
    await poll;
    slowest[path] = Math.round(worst);
    const trace = (await client.get(`/v1/runs/${run.id}/trace`)).body.trace;
    return { run, trace, worst };
  };

  const readFailures = (trace: { steps: Array<{ readFailure?: { reason: string } }> }) =>
    trace.steps.flatMap((s) => (s.readFailure ? [s.readFailure.reason] : []));

  it("a page nested 200,000 deep fails its read with limit_exceeded without freezing the API", async () => {
    const { run, trace, worst } = await runAgainst("/deep");
    expect(run.status).to.equal("failed");
    expect(readFailures(trace)).to.deep.equal(["limit_exceeded"]);
    expect(run.error).to.contain("levels deep");
    expect(worst).to.be.below(healthzBoundMs);
  });

  it("a body larger than the limit, declared or endless, fails with limit_exceeded", async () => {
    for (const path of ["/huge", "/endless"]) {
      const { run, trace, worst } = await runAgainst(path);
      expect(run.status, path).to.equal("failed");
      expect(readFailures(trace), path).to.deep.equal(["limit_exceeded"]);
      expect(worst, path).to.be.below(healthzBoundMs);
    }
  });

  it("a trickled body or headers that never come end at the run deadline, freeing the worker", async () => {
    for (const path of ["/trickle", "/slow-headers"]) {
      const { run, worst } = await runAgainst(path);
      expect(run.status, path).to.equal("failed");
      expect(run.error, path).to.contain(`exceeded its ${runDeadlineMs / 1000} s deadline`);
      expect(Date.parse(run.completedAt) - Date.parse(run.startedAt), path).to.be.below(runDeadlineMs + 5_000);
      expect(worst, path).to.be.below(healthzBoundMs);
    }
  });
});
