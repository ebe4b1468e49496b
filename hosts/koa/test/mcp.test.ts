import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { makeClient } from "@gleaner/conformance";
import { MemoryStoreLive } from "@gleaner/memory";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { expect } from "chai";
import { pino } from "pino";
import { type RunningHost, startHost } from "@gleaner/koa";
import { startPricedList } from "./support/priced-list.js";

/** A tool's answer: the JSON text it returned, parsed (or its error text). */
const answer = (result: Awaited<ReturnType<Client["callTool"]>>) => {
  const content = result.content as Array<{ type: string; text: string }>;
  return result.isError ? { error: content[0]?.text } : JSON.parse(content[0]!.text);
};

describe("the MCP server (Model Context Protocol), through the SDK's own client", function () {
  this.timeout(60_000);
  let host: RunningHost;
  let site: Awaited<ReturnType<typeof startPricedList>>;
  let key: string;
  let datasetId: string;
  const connect = async (apiKey: string) => {
    const client = new Client({ name: "gleaner-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${host.url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${apiKey}` } },
      }),
    );
    return client;
  };

  before(async () => {
    site = await startPricedList(4);
    host = await startHost({
      overrides: { store: MemoryStoreLive },
      config: { port: 0, host: "127.0.0.1", allowPrivateTargets: ["127.0.0.1/32"] },
      logger: pino({ level: "silent" }),
    });
    key = await host.createKey("agent-owner", 10);
    datasetId = (await makeClient(host.url, key).post("/v1/datasets", site.dataset())).body.dataset.id;
  });
  after(async () => {
    await host?.close();
    await site?.close();
  });

  it("lists tools an agent can use unaided, the read-only ones marked so", async () => {
    const client = await connect(key);
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name).sort();
    expect(names).to.deep.equal(
      [
        "changes_since",
        "describe_dataset",
        "get_run",
        "list_datasets",
        "preview_source",
        "read_rows",
        "row_evidence",
        "start_run",
        "suggest_sources",
      ].sort(),
    );
    for (const tool of tools) {
      expect(tool.description, tool.name).to.have.length.above(20);
      expect(tool.inputSchema.type).to.equal("object");
      expect(tool.annotations?.readOnlyHint, tool.name).to.equal(tool.name !== "start_run");
    }
    await client.close();
  });

  it("starts a run and waits with progress, then reads rows by column name, their evidence, changes and the run", async () => {
    const client = await connect(key);
    const progress: string[] = [];
    const started = answer(
      await client.callTool({ name: "start_run", arguments: { datasetId } }, undefined, {
        onprogress: (p) => void progress.push(p.message ?? ""),
      }),
    );
    expect(started.run.status).to.equal("succeeded");
    // The balance when the run was started; the run is charged when it is accepted.
    expect(started.creditsRemaining).to.equal(10);
    expect(progress.length).to.be.above(0);
    expect(progress.at(-1)).to.equal("run succeeded");

    const described = answer(await client.callTool({ name: "describe_dataset", arguments: { datasetId } }));
    expect(described.columns.map((c: { name: string }) => c.name)).to.deep.equal(["label", "price"]);

    const rows = answer(
      await client.callTool({ name: "read_rows", arguments: { datasetId, where: { label: "item-2" } } }),
    );
    expect(rows.rows).to.have.length(1);
    expect(rows.rows[0].values).to.deep.equal({ label: "item-2", price: 3.5 });

    const evidence = answer(
      await client.callTool({
        name: "row_evidence",
        arguments: { datasetId, rowId: rows.rows[0].rowId, column: "price" },
      }),
    );
    expect(evidence.cells[0].value).to.equal(3.5);
    expect(evidence.cells[0].evidence[0].sourceUrl).to.equal(site.url);
    expect(evidence.cells[0].evidence[0].excerpt).to.contain("3.50");

    const changes = answer(await client.callTool({ name: "changes_since", arguments: { datasetId, after: 0 } }));
    expect(changes.changes).to.have.length(4);
    expect(changes.changes[0].after).to.have.keys("label", "price");

    const run = answer(await client.callTool({ name: "get_run", arguments: { runId: started.run.id } }));
    expect(run.run.status).to.equal("succeeded");
    expect(run.unknowns).to.be.an("array");

    const listed = answer(await client.callTool({ name: "list_datasets", arguments: {} }));
    expect(listed.datasets.map((d: { id: string }) => d.id)).to.deep.equal([datasetId]);
    await client.close();
  });

  it("sees only the key's owner: another owner's dataset is not found; no key is 401", async () => {
    const stranger = await connect(await host.createKey("other-owner", 1));
    const refused = answer(await stranger.callTool({ name: "describe_dataset", arguments: { datasetId } }));
    expect(refused.error).to.contain("not_found");
    await stranger.close();
    const bare = await fetch(`${host.url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(bare.status).to.equal(401);
    expect(bare.headers.get("x-credits-remaining")).to.equal("0");
    expect((await bare.json()).error.code).to.equal("unauthorized");
  });

  it("serves the same tools over stdio with gleaner mcp, started as the agents guide's client configuration says", async () => {
    // The guide's mcpServers entry as written, run from the checkout as it says; only the server's URL
    // and the key, placeholders there, are this test's.
    const guide = readFileSync(new URL("../../../docs/guides/agents.md", import.meta.url), "utf8");
    const block = /```json\n([\s\S]*?)```/.exec(guide)?.[1];
    if (!block) throw new Error("docs/guides/agents.md has no ```json block");
    const entry = JSON.parse(block).mcpServers.gleaner as { command: string; args: string[]; env: object };
    const readme = readFileSync(new URL("../../../README.md", import.meta.url), "utf8");
    expect(/```json\n([\s\S]*?)```/.exec(readme)?.[1], "README shows the guide's configuration").to.equal(block);
    expect(Object.keys(entry.env).sort()).to.deep.equal(["GLEANER_API_KEY", "GLEANER_URL"]);
    const client = new Client({ name: "gleaner-test-stdio", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: entry.command,
        args: entry.args,
        cwd: fileURLToPath(new URL("../../..", import.meta.url)),
        env: { ...(process.env as Record<string, string>), GLEANER_URL: host.url, GLEANER_API_KEY: key },
      }),
    );
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).to.include("read_rows");
    const listed = answer(await client.callTool({ name: "list_datasets", arguments: {} }));
    expect(listed.datasets.map((d: { id: string }) => d.id)).to.deep.equal([datasetId]);
    await client.close();
  });
});
