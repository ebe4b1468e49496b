import { type Body, browserListDataset, type Client, makeClient, runToEnd } from "@gleaner/conformance";
import { type RunningHost, readConfig, startHost } from "@gleaner/koa";
import { expect } from "chai";
import { existsSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { pino } from "pino";

const pages: Record<string, string> = {
  "/loop.html": "<ol><li class='item'><b>never</b></li></ol><script>while (true) {}</script>",
  "/bomb.html":
    "<ol><li class='item'><b>never</b></li></ol><script>var kept = []; for (;;) kept.push(new Uint8Array(32 * 1024 * 1024).fill(7));</script>",
};

/**
 * The browser's limits come from the environment (GLEANER_BROWSER_READ_TIMEOUT_MS,
 * GLEANER_BROWSER_MEMORY_MB): a host started with smaller ones ends hostile pages by them, and says
 * which limit it applied. The defaults (30 s, 1024 MB) are covered by the conformance suite.
 */
describe("browser limits from the environment", function () {
  this.timeout(90_000);
  const chromium = process.env.GLEANER_BROWSER_PATH ?? "/usr/bin/chromium";
  let server: Server;
  let origin = "";

  before(async function () {
    if (!existsSync(chromium)) {
      console.log(`      NOT RUN: no Chromium at ${chromium} (CI installs Debian's chromium).`);
      this.skip();
    }
    server = createServer((req, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(pages[req.url ?? ""] ?? "<p>not found</p>");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  const hosts: RunningHost[] = [];
  after(async () => {
    for (const host of hosts) await host.close();
    server?.closeAllConnections();
    // A before hook that failed early leaves no server: closing nothing must not wait forever.
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });

  /** A host of its own started with `limits`, and a client of an owner on it. */
  const clientOn = async (limits: Record<string, string>): Promise<Client> => {
    const config = readConfig({
      GLEANER_PORT: "0",
      GLEANER_HOST: "127.0.0.1",
      GLEANER_ALLOW_PRIVATE_TARGETS: "127.0.0.1",
      GLEANER_BROWSER_PATH: chromium,
      ...limits,
    });
    const host = await startHost({ config, logger: pino({ level: "silent" }) });
    hosts.push(host);
    return makeClient(host.url, await host.createKey("browser-limits", 10));
  };

  const failedCoverage = async (client: Client, path: string): Promise<string> => {
    const created = await client.post("/v1/datasets", browserListDataset(`Limits ${path}`, `${origin}${path}`));
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const run = await runToEnd(client, created.body.dataset.id, 60_000);
    expect(run.status, JSON.stringify(run)).to.equal("failed");
    return run.checks.find((c: Body) => c.checkId === "coverage").message;
  };

  it("GLEANER_BROWSER_READ_TIMEOUT_MS sets the render budget a busy page runs into", async () => {
    const client = await clientOn({ GLEANER_BROWSER_READ_TIMEOUT_MS: "3000" });
    expect(await failedCoverage(client, "/loop.html"))
      .to.contain("limit_exceeded")
      .and.contain("past the 3 s render budget");
  });

  // The render budget is left long here, so only the memory limit can end the page, even on a busy machine.
  it("GLEANER_BROWSER_MEMORY_MB sets the memory a renderer may use", async () => {
    const client = await clientOn({ GLEANER_BROWSER_READ_TIMEOUT_MS: "45000", GLEANER_BROWSER_MEMORY_MB: "256" });
    const message = await failedCoverage(client, "/bomb.html");
    expect(message)
      .to.contain("limit_exceeded")
      .and.match(/more than 256 MB|heap limit 128 MB/);
  });

  it("refuses values outside their range, naming the variable", () => {
    expect(() => readConfig({ GLEANER_BROWSER_MEMORY_MB: "12" })).to.throw(
      /GLEANER_BROWSER_MEMORY_MB: must be a whole number from 64 to 65536/,
    );
    expect(() => readConfig({ GLEANER_BROWSER_READ_TIMEOUT_MS: "soon" })).to.throw(/GLEANER_BROWSER_READ_TIMEOUT_MS/);
  });
});
