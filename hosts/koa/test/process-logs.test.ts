import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { makeClient, waitForRun } from "@gleaner/conformance";
import { expect } from "chai";
import { startPricedList } from "./support/priced-list.js";
import { type Spawned, spawnUntil, stopChild } from "./support/spawn-until.js";

const bin = fileURLToPath(new URL("../bin/gleaner.js", import.meta.url));

/** A log line as pino writes it; the banner lines `serve` prints for a person are not JSON and are left out. */
const logLines = (stdout: string): Array<{ level: number; msg: string } & Record<string, unknown>> =>
  stdout
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line));

/**
 * `gleaner serve` and `gleaner mcp` as an operator starts them, each at a GLEANER_LOG_LEVEL: the
 * worker's own check is adapters/agenda/test/worker-logs.test.ts.
 */
describe("GLEANER_LOG_LEVEL in gleaner serve and gleaner mcp", function () {
  this.timeout(60_000);
  let site: Awaited<ReturnType<typeof startPricedList>>;
  const started: Spawned[] = [];
  before(async () => {
    site = await startPricedList(3);
  });
  after(async () => {
    for (const { child } of started) await stopChild(child);
    await site?.close();
  });

  /** `gleaner serve --dev-key` on the memory store at `level`; one run through its API; its stdout once stopped. */
  const serveOneRun = async (level: string, keepServing = false) => {
    const served = await spawnUntil(
      [bin, "serve", "--dev-key"],
      {
        ...process.env,
        GLEANER_STORAGE: "memory",
        GLEANER_QUEUE: "memory",
        GLEANER_HOST: "127.0.0.1",
        GLEANER_PORT: "0",
        GLEANER_ALLOW_PRIVATE_TARGETS: "127.0.0.1/32",
        GLEANER_LOG_LEVEL: level,
      },
      /listening on (\S+)[\s\S]*API key: (\S+)\n/,
    );
    started.push(served);
    const [, url, key] = served.match as unknown as [string, string, string];
    const owner = makeClient(url, key);
    const dataset = (await owner.post("/v1/datasets", site.dataset())).body.dataset;
    const run = await waitForRun(owner, (await owner.post(`/v1/datasets/${dataset.id}/runs`)).body.runId);
    expect(run.status).to.equal("succeeded");
    if (!keepServing) await stopChild(served.child);
    return { url, key, run, lines: () => logLines(served.stdout()) };
  };

  it("writes nothing below warn at warn, though a run was served", async () => {
    const { lines } = await serveOneRun("warn");
    expect(lines().filter((line) => line.level < 40)).to.deep.equal([]);
  });

  it("writes the run's lines at info, its pages' at debug only, in the worker's format (pino JSON with pid)", async () => {
    const info = await serveOneRun("info");
    const accepted = info.lines().find((line) => line.msg === "run accepted" && line.runId === info.run.id);
    expect(accepted, JSON.stringify(info.lines())).to.include({ level: 30, pages: 1 });
    expect(accepted?.pid).to.be.a("number");
    expect(info.lines().filter((line) => line.level < 30)).to.deep.equal([]);

    const debug = await serveOneRun("debug");
    expect(debug.lines().find((line) => line.msg === "page read" && line.runId === debug.run.id)).to.include({
      level: 20,
      url: site.url,
    });
    expect(debug.lines().some((line) => line.msg === "run accepted" && line.runId === debug.run.id)).to.equal(true);
  });

  it("gleaner mcp writes only the protocol to stdout, even at debug, and no log line to stderr", async () => {
    const { url, key } = await serveOneRun("info", true);
    const child = spawn(process.execPath, [bin, "mcp"], {
      env: { ...process.env, GLEANER_URL: url, GLEANER_API_KEY: key, GLEANER_LOG_LEVEL: "debug" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += String(chunk);
    });
    child.stderr.on("data", (chunk) => {
      stderr += String(chunk);
    });
    const send = (message: object) => child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
    const answered = async (id: number) => {
      for (let i = 0; i < 200 && !stdout.includes(`"id":${id}`); i++) await new Promise((r) => setTimeout(r, 50));
    };
    send({
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "test", version: "1" } },
    });
    await answered(1);
    send({ method: "notifications/initialized" });
    // One tool that answers and one that fails on the server (an unknown dataset): neither writes a log.
    send({ id: 2, method: "tools/call", params: { name: "list_datasets", arguments: {} } });
    send({ id: 3, method: "tools/call", params: { name: "describe_dataset", arguments: { datasetId: "nope" } } });
    await answered(2);
    await answered(3);
    child.stdin.end();
    if (child.exitCode === null) await Promise.race([once(child, "exit"), new Promise((r) => setTimeout(r, 5_000))]);
    child.kill("SIGTERM");

    const messages = stdout
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    expect(messages.map((message) => [message.jsonrpc, message.id])).to.deep.equal([
      ["2.0", 1],
      ["2.0", 2],
      ["2.0", 3],
    ]);
    expect(messages[2].result.isError).to.equal(true);
    expect(stderr).to.equal("");
  });
});
