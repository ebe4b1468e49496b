import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect } from "chai";
import { type RunningHost, startHost } from "@gleaner/koa";
import { runExport } from "../src/cli/export.js";

const cli = fileURLToPath(new URL("../dist/cli.js", import.meta.url));
const run = promisify(execFile);

const dataset = {
  name: "Export by CLI",
  columns: [
    { name: "upc", type: "string", key: true },
    { name: "price", type: "number" },
  ],
  source: {
    version: 1,
    url: "https://books.example/catalogue/page-1.html",
    itemSelector: "article.product_pod",
    fields: [
      { name: "upc", read: { selector: "h3 > a", kind: "attribute", attribute: "href" } },
      { name: "price", read: { selector: "p.price_color" } },
    ],
    identity: { kind: "source-key", field: "upc" },
    pagination: { kind: "none" },
  },
};

describe("gleaner export", function () {
  // Each CLI process loads the whole host; on a busy machine that takes seconds.
  this.timeout(120_000);
  let host: RunningHost;
  let key: string;
  let datasetId: string;
  before(async () => {
    host = await startHost({ config: { port: 0, host: "127.0.0.1", logLevel: "silent" } });
    key = await host.createKey("exporter", 0);
    const created = await fetch(`${host.url}/v1/datasets`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(dataset),
    });
    expect(created.status).to.equal(201);
    datasetId = ((await created.json()) as { dataset: { id: string } }).dataset.id;
  });
  after(() => host.close());

  const gleaner = (args: string[], apiKey: string | undefined = key) =>
    run(process.execPath, [cli, "export", ...args], {
      env: {
        ...process.env,
        GLEANER_URL: host.url,
        ...(apiKey ? { GLEANER_API_KEY: apiKey } : { GLEANER_API_KEY: "" }),
      },
    });

  it("streams the export to stdout through the API: a CSV header naming the columns", async () => {
    const { stdout } = await gleaner([datasetId, "--format", "csv"]);
    expect(stdout).to.equal("_rowKey,_status,_presence,_updatedAt,upc,price\n");
    const bad = await gleaner([datasetId, "--format", "xml"]).then(
      () => null,
      (e: { code: number; stderr: string }) => e,
    );
    expect(bad?.code).to.equal(1);
    expect(bad?.stderr).to.match(/--format must be one of csv, jsonl, parquet/);
  });

  it("fails with the server's reason, or names the option it cannot use", async () => {
    const env = { GLEANER_URL: host.url, GLEANER_API_KEY: key };
    const failures: Array<[Parameters<typeof runExport>[0], Record<string, string>, RegExp]> = [
      [{ datasetId, format: "csv", asOf: "1e3" }, env, /--as-of must be a sequence/],
      [{ datasetId, format: "csv", asOf: undefined }, { GLEANER_URL: host.url }, /GLEANER_API_KEY is not set/],
      [{ datasetId, format: "jsonl", asOf: "5" }, env, /422\): validation_error/],
      [{ datasetId: globalThis.crypto.randomUUID(), format: "csv", asOf: undefined }, env, /404\): not_found/],
    ];
    for (const [command, environment, message] of failures) {
      const error = await runExport(command, environment).then(
        () => null,
        (e: Error) => e,
      );
      expect(error?.message, JSON.stringify(command)).to.match(message);
    }
  });
});
