import { execFile, spawnSync } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { makeClient, publishersDataset, type ResearchSite, scriptFor, startResearchSite } from "@gleaner/conformance";
import { LanguageModel, replayLanguageModel } from "@gleaner/core";
import { MemoryStoreLive } from "@gleaner/memory";
import { expect } from "chai";
import * as Layer from "effect/Layer";
import { pino } from "pino";
import { type RunningHost, startHost } from "@gleaner/koa";
import { type PricedList, startPricedList } from "./support/priced-list.js";

const bin = fileURLToPath(new URL("../bin/gleaner.js", import.meta.url));
const run = promisify(execFile);

describe("gleaner help", function () {
  // Fourteen processes started: side by side, and with room for a busy machine.
  this.timeout(60_000);
  it("prints usage and exits 0 for --help, help, and COMMAND --help", async () => {
    await Promise.all(
      [["--help"], ["help"], ["-h"], []].map(async (args) => {
        const { stdout } = await run(process.execPath, [bin, ...args]);
        expect(stdout, args.join(" ")).to.match(/^Usage: gleaner <command>/);
        expect(stdout).to.contain("runs watch RUN_ID");
      }),
    );
    await Promise.all(
      ["serve", "worker", "keys", "credits", "runs"].map(async (command) => {
        const [{ stdout }, help] = await Promise.all([
          run(process.execPath, [bin, command, "--help"]),
          run(process.execPath, [bin, "help", command]),
        ]);
        expect(stdout, command).to.match(new RegExp(`^gleaner ${command}`));
        expect(help.stdout).to.equal(stdout);
      }),
    );
  });

  it("stops with a hint, not a crash, when started by a Node older than 24", function () {
    const old = ["/usr/bin/node", "/usr/local/bin/node"].find((path) => {
      const version = spawnSync(path, ["--version"], { encoding: "utf8" }).stdout?.trim();
      return version !== undefined && /^v(\d+)/.exec(version) !== null && Number(/^v(\d+)/.exec(version)![1]) < 24;
    });
    if (!old) {
      console.log("    (not run: this machine has no Node older than 24 at /usr/bin/node or /usr/local/bin/node)");
      this.skip();
    }
    const result = spawnSync(old!, [bin, "--help"], { encoding: "utf8" });
    expect(result.status).to.equal(1);
    expect(result.stderr).to.match(/gleaner needs Node 24 or newer; this is Node 2\d\./);
    expect(result.stderr).to.contain("npx gleaner");
  });
});

describe("gleaner runs start --watch / runs watch", function () {
  this.timeout(60_000);
  let host: RunningHost;
  let site: Server;
  let siteUrl: string;
  before(async () => {
    // Two listing pages, slow enough that the watch sees the run in flight.
    site = createServer((request, response) => {
      setTimeout(() => {
        const page = request.url?.includes("page-2") ? 2 : 1;
        const items = [1, 2, 3].map((i) => `<li class="item"><b>${page}-${i}</b></li>`).join("");
        const next = page === 1 ? '<a class="next" href="/page-2.html">next</a>' : "";
        response.writeHead(request.url === "/robots.txt" ? 404 : 200, { "content-type": "text/html" });
        response.end(`<html><body><ul>${items}</ul>${next}</body></html>`);
      }, 300);
    }).listen(0, "127.0.0.1");
    await new Promise((resolve) => site.once("listening", resolve));
    siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    host = await startHost({
      overrides: { store: MemoryStoreLive },
      config: { port: 0, host: "127.0.0.1", allowPrivateTargets: ["127.0.0.1/32"] },
      logger: pino({ level: "silent" }),
    });
  });
  after(async () => {
    await host.close();
    site.close();
  });

  it("starts a run, prints progress lines while it reads (stdout is not a terminal), then the checks, exit 0", async () => {
    const key = await host.createKey("watcher", 10);
    const created = await fetch(`${host.url}/v1/datasets`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({
        name: "Watched",
        columns: [{ name: "label", type: "string", key: true }],
        source: {
          version: 1,
          url: `${siteUrl}/page-1.html`,
          itemSelector: "li.item",
          fields: [{ name: "label", read: { selector: "b" } }],
          identity: { kind: "source-key", field: "label" },
          pagination: { kind: "next-link", selector: "a.next" },
        },
      }),
    });
    const datasetId = ((await created.json()) as { dataset: { id: string } }).dataset.id;
    const env = { ...process.env, GLEANER_URL: host.url, GLEANER_API_KEY: key };
    const { stdout } = await run(process.execPath, [bin, "runs", "start", datasetId, "--watch"], { env });
    const lines = stdout.trim().split("\n");
    expect(lines[0]).to.match(/^Run [0-9a-f-]{36} queued \(balance 10 credits\)\.$/);
    expect(stdout).to.match(/^running pages=\d records=\d+ reading http:\/\/127\.0\.0\.1:\d+\/page-\d\.html$/m);
    expect(stdout).to.match(/^Run [0-9a-f-]{36} succeeded: 6 new, 0 changed, 0 gone\.$/m);
    expect(stdout, stdout).to.match(/^ {2}✓ coverage/m);
    const runId = /^Run ([0-9a-f-]{36}) queued/.exec(stdout)![1]!;

    const watched = await run(process.execPath, [bin, "runs", "watch", runId], { env });
    expect(watched.stdout).to.contain(`Run ${runId} succeeded`);
  });

  it("exits 2 when the watched run did not succeed, with the failed check first", async () => {
    const key = await host.createKey("watcher-2", 10);
    const created = await fetch(`${host.url}/v1/datasets`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({
        name: "Nothing here",
        columns: [{ name: "label", type: "string", key: true }],
        source: {
          version: 1,
          url: `${siteUrl}/page-2.html`,
          itemSelector: "li.none",
          fields: [{ name: "label", read: { selector: "b" } }],
          identity: { kind: "source-key", field: "label" },
          pagination: { kind: "none" },
        },
      }),
    });
    const datasetId = ((await created.json()) as { dataset: { id: string } }).dataset.id;
    const env = { ...process.env, GLEANER_URL: host.url, GLEANER_API_KEY: key };
    const failure = await run(process.execPath, [bin, "runs", "start", datasetId, "--watch"], { env }).then(
      () => null,
      (e: { code: number; stdout: string }) => e,
    );
    expect(failure?.code).to.equal(2);
    expect(failure?.stdout).to.match(/failed: 0 new/);
    const checks = failure!.stdout.split("\n").filter((l) => /^ {2}[✓✗] /.test(l));
    expect(checks[0]).to.match(/^ {2}✗ minimum-items/);
  });

  it("names a failed present check by its column's label, never by a field id", async () => {
    const key = await host.createKey("watcher-3", 10);
    const created = await fetch(`${host.url}/v1/datasets`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({
        name: "Prices nowhere",
        columns: [
          { name: "label", type: "string", key: true },
          { name: "price", type: "number", label: "Price (EUR)" },
        ],
        source: {
          version: 1,
          url: `${siteUrl}/page-2.html`,
          itemSelector: "li.item",
          fields: [
            { name: "label", read: { selector: "b" } },
            { name: "price", read: { selector: "i.none" }, required: true },
          ],
          identity: { kind: "source-key", field: "label" },
          pagination: { kind: "none" },
        },
      }),
    });
    const datasetId = ((await created.json()) as { dataset: { id: string } }).dataset.id;
    const env = { ...process.env, GLEANER_URL: host.url, GLEANER_API_KEY: key };
    const failure = await run(process.execPath, [bin, "runs", "start", datasetId, "--watch"], { env }).then(
      () => null,
      (e: { code: number; stdout: string }) => e,
    );
    expect(failure?.code).to.equal(2);
    expect(failure?.stdout).to.contain("✗ present: Price (EUR)");
    // Neither the checks nor the run's error line carry a field id.
    expect(failure?.stdout).to.not.match(/present:[0-9a-f]{8}-/);
  });

  it("says which variable is missing when no key is set", async () => {
    const failure = await run(process.execPath, [bin, "runs", "watch", globalThis.crypto.randomUUID()], {
      env: { ...process.env, GLEANER_API_KEY: "" },
    }).then(
      () => null,
      (e: { code: number; stderr: string }) => e,
    );
    expect(failure?.code).to.equal(1);
    expect(failure?.stderr).to.contain("GLEANER_API_KEY is not set");
  });
});

describe("gleaner runs start --research --watch", function () {
  this.timeout(60_000);
  let host: RunningHost;
  let site: ResearchSite;
  before(async () => {
    site = await startResearchSite();
    // The scripted model answers in the replay format (no language model runs here).
    host = await startHost({
      overrides: {
        store: MemoryStoreLive,
        model: Layer.succeed(LanguageModel, replayLanguageModel(scriptFor(site), "scripted-model-1")),
      },
      config: { port: 0, host: "127.0.0.1", allowPrivateTargets: ["127.0.0.1/32"] },
      logger: pino({ level: "silent" }),
    });
  });
  after(async () => {
    await host.close();
    await site.close();
  });

  it("starts a research run of the dataset's question and watches it to the end, exit 0", async () => {
    const key = await host.createKey("researcher", 10);
    const client = makeClient(host.url, key);
    const datasetId = (await client.post("/v1/datasets", publishersDataset(site))).body.dataset.id as string;
    const env = { ...process.env, GLEANER_URL: host.url, GLEANER_API_KEY: key };
    const { stdout } = await run(process.execPath, [bin, "runs", "start", datasetId, "--research", "--watch"], { env });
    expect(stdout).to.match(/^Run [0-9a-f-]{36} queued \(balance 10 credits\)\.$/m);
    expect(stdout, stdout).to.match(/^Run [0-9a-f-]{36} succeeded: 3 new, 0 changed, 0 gone\.$/m);
    expect(stdout).to.match(/^ {2}✓ identity/m);
    const runId = /^Run ([0-9a-f-]{36}) queued/m.exec(stdout)![1]!;
    // A research run, not the deterministic one: its artifacts carry the pinned research recipe.
    const artifacts = (await client.get(`/v1/runs/${runId}/artifacts`)).body;
    expect(artifacts.recipe.model).to.deep.equal({ provider: "replay", modelId: "scripted-model-1" });
    const rows = (await client.get(`/v1/datasets/${datasetId}/rows`)).body.data as Array<{ identity: unknown }>;
    expect(rows.every((row) => row.identity !== null)).to.equal(true);
  });
});

describe("gleaner runs watch / runs accept for a held run", function () {
  this.timeout(60_000);
  let host: RunningHost;
  let list: PricedList;
  before(async () => {
    list = await startPricedList(12);
    host = await startHost({
      overrides: { store: MemoryStoreLive },
      config: { port: 0, host: "127.0.0.1", allowPrivateTargets: ["127.0.0.1/32"] },
      logger: pino({ level: "silent" }),
    });
  });
  after(async () => {
    await host.close();
    await list.close();
  });

  it("prints why a run was held and how to accept it (exit 2), then accepts it (exit 0), once", async () => {
    const key = await host.createKey("held-watcher", 10);
    const created = await fetch(`${host.url}/v1/datasets`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(list.dataset()),
    });
    const datasetId = ((await created.json()) as { dataset: { id: string } }).dataset.id;
    const env = { ...process.env, GLEANER_URL: host.url, GLEANER_API_KEY: key };
    await run(process.execPath, [bin, "runs", "start", datasetId, "--watch"], { env });
    // A redesign drops the price's markup.
    list.setPriced(0);
    const held = await run(process.execPath, [bin, "runs", "start", datasetId, "--watch"], { env }).then(
      () => null,
      (e: { code: number; stdout: string }) => e,
    );
    expect(held?.code).to.equal(2);
    const runId = /^Run ([0-9a-f-]{36}) queued/.exec(held!.stdout)![1]!;
    expect(held!.stdout).to.contain(`Run ${runId} held: 0 new, 0 changed, 0 gone.`);
    expect(held!.stdout).to.contain("drift_fill_rate: price was filled in 0% of 12 records, 100% before");
    expect(held!.stdout).to.match(/^ {4}item-0: was 1\.5, read nothing \(http:\/\/127\.0\.0\.1:\d+\/list\.html\)$/m);
    expect(held!.stdout).to.contain(`gleaner runs accept ${runId}`);

    const accepted = await run(process.execPath, [bin, "runs", "accept", runId], { env });
    expect(accepted.stdout).to.match(new RegExp(`^Run ${runId} succeeded: 0 new, 12 changed, 0 gone\\.$`, "m"));
    const again = await run(process.execPath, [bin, "runs", "accept", runId], { env }).then(
      () => null,
      (e: { code: number; stderr: string }) => e,
    );
    expect(again?.code).to.equal(1);
    expect(again?.stderr).to.contain("run_not_held");
  });
});
