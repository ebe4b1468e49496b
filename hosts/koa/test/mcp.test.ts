import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type BooksSite, booksDataset, makeClient, startBooksSite } from "@gleaner/conformance";
import { MemoryStoreLive } from "@gleaner/memory";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { expect } from "chai";
import { pino } from "pino";
import { type RunningHost, startHost } from "@gleaner/koa";
import { type PricedList, startPricedList } from "./support/priced-list.js";

/** A tool's answer: the JSON text it returned, parsed (or its error text). */
const answer = (result: Awaited<ReturnType<Client["callTool"]>>) => {
  const content = result.content as Array<{ type: string; text: string }>;
  return result.isError ? { error: content[0]?.text } : JSON.parse(content[0]!.text);
};

/** A memory host that may read sites on loopback. */
const startLoopbackHost = () =>
  startHost({
    overrides: { store: MemoryStoreLive },
    config: { port: 0, host: "127.0.0.1", allowPrivateTargets: ["127.0.0.1/32"] },
    logger: pino({ level: "silent" }),
  });

/** The SDK's client on the host's /mcp, with a bearer key. */
const connectOverHttp = async (host: RunningHost, apiKey: string) => {
  const client = new Client({ name: "gleaner-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${host.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${apiKey}` } },
    }),
  );
  return client;
};

/**
 * The progress messages the server sent, as the transport read them. The SDK's onprogress can miss the last one:
 * reading a response drops the call's progress handler at once, and a notification read in the same chunk is
 * handled a microtask later, so what the server sent is read off the transport.
 */
const progressReadBy = (client: Client) => {
  const messages: string[] = [];
  const transport = client.transport!;
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    if ("method" in message && message.method === "notifications/progress") {
      messages.push(String(message.params?.message));
    }
    deliver?.(message, extra);
  };
  return messages;
};

/** Asks for progress on a call (the SDK sends a progress token only when there is a handler). */
const withProgress = { onprogress: () => undefined };

describe("the MCP server (Model Context Protocol), through the SDK's own client", function () {
  this.timeout(60_000);
  let host: RunningHost;
  let site: PricedList;
  let key: string;
  let datasetId: string;
  const connect = (apiKey: string) => connectOverHttp(host, apiKey);

  before(async () => {
    site = await startPricedList(4);
    host = await startLoopbackHost();
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
    const progress = progressReadBy(client);
    const started = answer(
      await client.callTool({ name: "start_run", arguments: { datasetId } }, undefined, withProgress),
    );
    expect(started.run.status).to.equal("succeeded");
    // The balance when the run was started; the run is charged when it is accepted.
    expect(started.creditsRemaining).to.equal(10);
    expect(progress.length).to.be.above(0);
    expect(progress.at(-1)).to.equal("run succeeded");
    // Accepted, it is charged to the key's owner: one credit for the one page read.
    expect((await makeClient(host.url, key).get("/v1/usage")).body.balance).to.equal(10 - 1);

    const described = answer(await client.callTool({ name: "describe_dataset", arguments: { datasetId } }));
    expect(described.columns.map((c: { name: string }) => c.name)).to.deep.equal(["label", "price"]);
    expect(described).to.include({ sourceUrl: site.url, pagination: "none" });

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
    // An id too long for a request line is refused by Node before Gleaner: its status, nothing made up.
    const tooLong = answer(
      await stranger.callTool({ name: "describe_dataset", arguments: { datasetId: "a".repeat(20_000) } }),
    );
    expect(tooLong.error).to.equal("Reading the dataset failed: HTTP 431");
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
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).to.include("read_rows");
      const listed = answer(await client.callTool({ name: "list_datasets", arguments: {} }));
      expect(listed.datasets.map((d: { id: string }) => d.id)).to.deep.equal([datasetId]);
      const rows = answer(
        await client.callTool({ name: "read_rows", arguments: { datasetId, where: { label: "item-0" } } }),
      );
      expect(rows.rows.map((r: { values: object }) => r.values)).to.deep.equal([{ label: "item-0", price: 1.5 }]);
      const progress = progressReadBy(client);
      const started = answer(
        await client.callTool({ name: "start_run", arguments: { datasetId } }, undefined, withProgress),
      );
      expect(started.run.status).to.equal("succeeded");
      expect(progress.at(-1)).to.equal("run succeeded");
    } finally {
      await client.close();
    }
  });
});

describe("the MCP server holds credits, owner scoping and column names, and serves suggest and preview", function () {
  this.timeout(60_000);
  let host: RunningHost;
  let list: PricedList;
  let partial: PricedList;
  let books: BooksSite;
  const connect = (apiKey: string) => connectOverHttp(host, apiKey);
  const call = async (client: Client, name: string, args: Record<string, unknown>) =>
    answer(await client.callTool({ name, arguments: args }));

  before(async () => {
    [list, partial, books] = await Promise.all([startPricedList(4), startPricedList(4), startBooksSite()]);
    partial.setPriced(2);
    host = await startLoopbackHost();
  });
  after(async () => {
    await host?.close();
    await Promise.all([list?.close(), partial?.close(), books?.close()]);
  });

  it("refuses a run the owner cannot pay for as the API does (402 insufficient_credits), charging nothing", async () => {
    const key = await host.createKey("mcp-broke", 0);
    const api = makeClient(host.url, key);
    const datasetId = (await api.post("/v1/datasets", list.dataset())).body.dataset.id;
    const client = await connect(key);
    const refused = await client.callTool({ name: "start_run", arguments: { datasetId } });
    expect(refused.isError).to.equal(true);
    const byApi = await api.post(`/v1/datasets/${datasetId}/runs`, {});
    expect(byApi.status).to.equal(402);
    expect(answer(refused).error).to.contain(
      `HTTP ${byApi.status} ${byApi.body.error.code}: ${byApi.body.error.message}`,
    );
    expect((await api.get(`/v1/datasets/${datasetId}/runs`)).body.data).to.deep.equal([]);
    await client.close();
  });

  it("finds none of another owner's ids, on every tool that takes one, and starts nothing for them", async () => {
    const ownerKey = await host.createKey("mcp-owner", 5);
    const owner = makeClient(host.url, ownerKey);
    const datasetId = (await owner.post("/v1/datasets", list.dataset())).body.dataset.id;
    const ownerClient = await connect(ownerKey);
    const runId = (await call(ownerClient, "start_run", { datasetId })).run.id;
    const rowId = (await call(ownerClient, "read_rows", { datasetId })).rows[0].rowId;
    await ownerClient.close();

    const strangerKey = await host.createKey("mcp-stranger", 5);
    const stranger = await connect(strangerKey);
    for (const [name, args] of [
      ["describe_dataset", { datasetId }],
      ["read_rows", { datasetId }],
      ["changes_since", { datasetId }],
      ["changes_since", { datasetId, rowId, column: "price" }],
      ["row_evidence", { datasetId, rowId }],
      ["get_run", { runId }],
      ["start_run", { datasetId }],
    ] as const) {
      const refused = await stranger.callTool({ name, arguments: args });
      expect(refused.isError, name).to.equal(true);
      expect(answer(refused).error, name).to.contain("HTTP 404 not_found");
    }
    await stranger.close();
    expect((await owner.get(`/v1/datasets/${datasetId}/runs`)).body.data).to.have.length(1);
    expect((await makeClient(host.url, strangerKey).get("/v1/usage")).body.balance).to.equal(5);
    // The source route describe_dataset reads is owner-scoped like the rest of the API.
    const source = await owner.get(`/v1/datasets/${datasetId}/source`);
    expect(source.body).to.deep.include({ recipeVersion: 1 });
    expect(source.body.source.url).to.equal(list.url);
    expect((await makeClient(host.url, strangerKey).get(`/v1/datasets/${datasetId}/source`)).status).to.equal(404);
  });

  it("filters the change feed by column alone, across rows", async () => {
    const key = await host.createKey("mcp-changes", 5);
    const api = makeClient(host.url, key);
    const body = list.dataset();
    body.columns.push({ name: "note", type: "string", ownership: "user" } as never);
    const dataset = (await api.post("/v1/datasets", body)).body.dataset;
    const client = await connect(key);
    await call(client, "start_run", { datasetId: dataset.id });
    const rows = (await call(client, "read_rows", { datasetId: dataset.id })).rows;
    const columnId = (name: string) => dataset.columns.find((c: { name: string }) => c.name === name).id;
    const edit = async (label: string, column: string, value: unknown) => {
      const rowId = rows.find((r: { values: { label: string } }) => r.values.label === label).rowId;
      const row = (await api.get(`/v1/datasets/${dataset.id}/rows/${rowId}`)).body;
      const patched = await api.patch(`/v1/datasets/${dataset.id}/rows/${rowId}`, {
        expectedRevisionId: row.revisionId,
        requestId: `${label}-${column}`,
        values: { [columnId(column)]: value },
      });
      expect(patched.status, JSON.stringify(patched.body)).to.equal(200);
      return rowId;
    };
    const priced = await edit("item-1", "price", 9);
    const noted = await edit("item-2", "note", "checked");
    const byNote = await call(client, "changes_since", { datasetId: dataset.id, column: "note" });
    expect(byNote.changes.map((c: { rowId: string }) => c.rowId)).to.deep.equal([noted]);
    expect(byNote.changes[0]).to.deep.include({ changed: ["note"], origin: "user" });
    expect(byNote.changes[0].after.note).to.equal("checked");
    expect(byNote.nextAfter).to.equal(null);
    // The run's four created rows set every collected column; then the one price edit.
    const byPrice = await call(client, "changes_since", { datasetId: dataset.id, column: "price" });
    expect(byPrice.changes).to.have.length(5);
    expect(byPrice.changes.at(-1)).to.deep.include({ rowId: priced, changed: ["price"] });
    const firstTwo = await call(client, "changes_since", { datasetId: dataset.id, column: "price", limit: 2 });
    expect(firstTwo.changes).to.have.length(2);
    expect(firstTwo.nextAfter).to.equal(firstTwo.changes[1].sequence);
    const rest = await call(client, "changes_since", {
      datasetId: dataset.id,
      column: "price",
      after: firstTwo.nextAfter,
    });
    expect(rest.changes.map((c: { sequence: number }) => c.sequence)).to.deep.equal(
      byPrice.changes.slice(2).map((c: { sequence: number }) => c.sequence),
    );
    await client.close();
  });

  it("names columns, never field ids, in every tool's answer about a failed run", async () => {
    const key = await host.createKey("mcp-failed", 5);
    const api = makeClient(host.url, key);
    const body = partial.dataset();
    (body.source.fields[1] as { required?: boolean }).required = true;
    const dataset = (await api.post("/v1/datasets", body)).body.dataset;
    const client = await connect(key);
    const started = await call(client, "start_run", { datasetId: dataset.id });
    expect(started.run.status).to.equal("failed");
    const outputs = [
      started,
      await call(client, "get_run", { runId: started.run.id }),
      await call(client, "describe_dataset", { datasetId: dataset.id }),
      await call(client, "list_datasets", {}),
      await call(client, "read_rows", { datasetId: dataset.id }),
      await call(client, "changes_since", { datasetId: dataset.id }),
    ];
    const run = outputs[1];
    expect(run.run.checks.find((c: { passed: boolean }) => !c.passed).checkId).to.equal("present: price");
    expect(run.findings.map((f: { code: string }) => f.code)).to.include("check_failed:present:price");
    const ids = dataset.columns.map((c: { id: string }) => c.id);
    for (const output of outputs) {
      const written = JSON.stringify(output);
      for (const id of ids) expect(written, written.slice(0, 200)).not.to.contain(id);
    }
    await client.close();
  });

  it("suggests sources for a page and previews one, free, on a site on loopback", async () => {
    const key = await host.createKey("mcp-sources", 0);
    const client = await connect(key);
    const suggested = await call(client, "suggest_sources", {
      url: books.pageUrl(1),
      question: "Which books are sold?",
    });
    expect(suggested.page.status).to.equal("read");
    expect(suggested.suggestions.length).to.be.within(1, 5);
    const first = suggested.suggestions[0];
    expect(first.source.itemSelector).to.contain("article.product_pod");
    expect(JSON.stringify(first.preview.records)).to.contain(books.books[0]!.title);
    expect(first.why).to.be.a("string").and.not.equal("");

    const { source, columns } = booksDataset(books);
    const previewed = await call(client, "preview_source", {
      source,
      columns: columns.filter((c: { ownership?: string }) => c.ownership !== "user"),
    });
    expect(previewed.preview.pages.map((p: { status: string }) => p.status)).to.deep.equal(["read", "read"]);
    expect(previewed.preview.records).to.have.length(40);
    expect(previewed.preview.records[0].values.title).to.equal(books.books[0]!.title);
    expect(previewed.preview.checks.every((c: { passed: boolean }) => c.passed)).to.equal(true);
    const bad = await client.callTool({ name: "preview_source", arguments: { source: { url: "not a url" } } });
    expect(bad.isError).to.equal(true);
    expect(answer(bad).error).to.contain("HTTP 422 validation_error");
    expect((await makeClient(host.url, key).get("/v1/usage")).body.balance, "free").to.equal(0);
    await client.close();
  });
});
