import { type ChildProcess, spawn } from "node:child_process";
import { booksDataset, loadBooks, makeClient, startBooksSite, waitForRun } from "@gleaner/conformance";
import { expect } from "chai";
import { readFileSync } from "node:fs";
import pg from "pg";
import { block, type DocBlock, root } from "./doc-blocks.js";

/**
 * README's walk, run as written: the blocks tagged `sh walk-site`, `sh walk-server` and `sh walk`
 * are read from README.md, `sh walk-suggest` from the guide docs/guides/from-a-page-to-a-source.md,
 * `sh data-out-export` and `sh data-out-webhook` from docs/guides/data-out.md, and `sh durable-serve`
 * and `sh durable-worker` from docs/guides/durable-profile.md (not copied here), so a change that
 * breaks the walk or a guide's commands breaks this test.
 * Only the ports differ (0: free ones) so the test never collides with a server already running.
 */

const started: ChildProcess[] = [];
const background = (script: string, env: Record<string, string>) => {
  const child = spawn("bash", ["-c", script], { cwd: root, env: { ...process.env, ...env }, detached: true });
  started.push(child);
  let output = "";
  child.stdout?.on("data", (chunk) => {
    output += String(chunk);
  });
  child.stderr?.on("data", (chunk) => {
    output += String(chunk);
  });
  return {
    waitFor: async (pattern: RegExp, ms = 120_000): Promise<RegExpExecArray> => {
      const deadline = Date.now() + ms;
      for (;;) {
        const match = pattern.exec(output);
        if (match) return match;
        if (child.exitCode !== null || Date.now() > deadline) {
          throw new Error(`Waiting for ${pattern} in the output of "${script.trim()}":\n${output}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
  };
};

const stopStarted = () => {
  for (const child of started.splice(0)) {
    if (!child.pid) continue;
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {
      // The group is gone already.
    }
  }
};

describe("README's walk, run as written", function () {
  this.timeout(240_000);
  after(() => {
    // Each block ran in its own process group (npm, then node): stop the whole group.
    stopStarted();
  });

  it("creates the books dataset on the demo site, runs it, reads rows, edits one, reads the feed, writes CSV, then exports it and registers a webhook (guide: data out)", async () => {
    const site = background(block("walk-site"), { DEMO_SITE_PORT: "0" });
    const siteUrl = (await site.waitFor(/^SITE=(\S+)$/m))[1]!;
    const server = background(block("walk-server"), {
      GLEANER_PORT: "0",
      GLEANER_HOST: "127.0.0.1",
      GLEANER_LOG_LEVEL: "warn",
    });
    const url = (await server.waitFor(/listening on (\S+)/))[1]!;
    const key = (await server.waitFor(/^API key: (gl_\S+)$/m))[1]!;

    const runBlock = async (tag: DocBlock, extra: Record<string, string> = {}) => {
      const walk = spawn("bash", ["-euo", "pipefail", "-c", block(tag)], {
        cwd: `${root}hosts/koa`,
        env: { ...process.env, KEY: key, API: url, SITE: siteUrl, ...extra },
      });
      let out = "";
      let err = "";
      walk.stdout.on("data", (chunk) => {
        out += String(chunk);
      });
      walk.stderr.on("data", (chunk) => {
        err += String(chunk);
      });
      const code = await new Promise<number | null>((resolve) => walk.on("exit", resolve));
      expect(code, `${out}\n${err}`).to.equal(0);
      return out;
    };
    const out = await runBlock("walk");
    expect(out).to.match(/^dataset [0-9a-f-]{36}$/m);
    expect(out).to.contain('{"status":"succeeded","rowDeltas":{"new":1000,"changed":0,"gone":0}}');
    expect(out).to.contain('{"balance":950}');
    expect(out).to.match(/\{"origin":"user","kind":"updated","changedFieldIds":\["[0-9a-f-]{36}"\]\}/);
    expect(out).to.match(
      /\{"sequence":\d+,"origin":"collection","kind":"created"\}\n\{"sequence":\d+,"origin":"user","kind":"updated"\}/,
    );
    const csv = readFileSync(`${root}hosts/koa/books.csv`, "utf8").trim().split("\n");
    expect(csv[0]).to.equal('"link","title","price"');
    expect(csv).to.have.length(501);
    expect(csv.slice(1).every((line) => /^"[^"]+","(?:[^"]|"")*",\d+(\.\d+)?$/.test(line))).to.equal(true);
    const datasetId = /^dataset ([0-9a-f-]{36})$/m.exec(out)![1]!;

    // The guide "Data out": exports of the walk's dataset, and a webhook registered, as written.
    await runBlock("data-out-export", { ID: datasetId });
    const exported = readFileSync(`${root}hosts/koa/books.csv`, "utf8").trim().split("\n");
    expect(exported[0]).to.match(/^_rowKey,_status,_presence,_updatedAt,link,title,price$/);
    expect(exported).to.have.length(1001);
    const asOf = readFileSync(`${root}hosts/koa/books-120.jsonl`, "utf8").trim().split("\n");
    expect(asOf).to.have.length(120);
    expect(JSON.parse(asOf[0]!)).to.include.keys("_rowKey", "_status", "link", "title", "price");
    expect(readFileSync(`${root}hosts/koa/books.parquet`).subarray(0, 4).toString()).to.equal("PAR1");
    const registered = await runBlock("data-out-webhook");
    expect(JSON.parse(registered).secret).to.match(/^whsec_/);
    expect(JSON.parse(registered).webhook.url).to.equal("https://hooks.example.com/gleaner");

    // The guide "From a page to a source": suggest, preview, create, as written.
    const suggested = await runBlock("walk-suggest");
    expect(suggested).to.match(/^\{"item":"article\.product_pod","columns":\[[^\]]*"url"[^\]]*\],"price":51\.77\}$/m);
    expect(suggested).to.contain('{"failed":[],"estimate":{"complete":false,"pages":null,"credits":null}}');
    expect(suggested).to.match(/^created [0-9a-f-]{36}$/m);
  });
});

describe("the durable profile's commands, run as written (docs/guides/durable-profile.md)", function () {
  this.timeout(240_000);
  const databaseUrl = /GLEANER_POSTGRES_URL=(\S+)/.exec(block("durable-serve"))?.[1] ?? "";
  let reachable = true;

  before(async function () {
    const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 5_000 });
    try {
      await client.connect();
      await client.query("select 1");
    } catch (error) {
      reachable = false;
      if (process.env.GLEANER_REQUIRE_POSTGRES === "1") {
        throw new Error(`GLEANER_REQUIRE_POSTGRES=1 but PostgreSQL at ${databaseUrl} is not reachable: ${error}`);
      }
      console.log(`      NOT RUN: PostgreSQL at ${databaseUrl} is not reachable (${(error as Error).message}).`);
      this.skip();
    } finally {
      await client.end().catch(() => undefined);
    }
  });
  after(() => {
    if (reachable) stopStarted();
  });

  it("creates a key, serves and scales out with a worker; a run of the books site succeeds through them", async () => {
    const site = await startBooksSite({ books: (await loadBooks()).slice(0, 40) });
    try {
      const env = { GLEANER_HOST: "127.0.0.1", GLEANER_ALLOW_PRIVATE_TARGETS: "127.0.0.1" };
      const server = background(block("durable-serve"), {
        ...env,
        GLEANER_PORT: "0",
        GLEANER_LOG_LEVEL: "warn",
      });
      const key = (await server.waitFor(/^(gl_\S+)$/m))[1]!;
      const url = (await server.waitFor(/listening on (\S+)/))[1]!;
      const worker = background(block("durable-worker"), { ...env, GLEANER_LOG_LEVEL: "info" });
      await worker.waitFor(/worker consuming the run queue/);

      const client = makeClient(url, key);
      const usage = await client.get("/v1/usage");
      expect(usage.status).to.equal(200);
      const created = await client.post("/v1/datasets", booksDataset(site));
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      const started = await client.post(`/v1/datasets/${created.body.dataset.id}/runs`);
      expect(started.status, JSON.stringify(started.body)).to.equal(202);
      const run = await waitForRun(client, started.body.runId);
      expect(run.status, JSON.stringify(run)).to.equal("succeeded");
      // The database outlives the test: leave owner acme no dataset, so repeated runs stay within its limits.
      const deleted = await fetch(`${url}/v1/datasets/${created.body.dataset.id}`, {
        method: "DELETE",
        headers: { authorization: `Bearer ${key}` },
      });
      expect(deleted.status).to.equal(204);
    } finally {
      await site.close();
    }
  });
});
