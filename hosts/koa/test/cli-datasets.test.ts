import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { validDataset } from "@gleaner/conformance";
import { MemoryStoreLive } from "@gleaner/memory";
import { expect } from "chai";
import { pino } from "pino";
import { type RunningHost, startHost } from "@gleaner/koa";

const bin = fileURLToPath(new URL("../bin/gleaner.js", import.meta.url));
const run = promisify(execFile);

describe("gleaner datasets delete", function () {
  this.timeout(30_000);
  let host: RunningHost;
  before(async () => {
    host = await startHost({
      overrides: { store: MemoryStoreLive },
      config: { port: 0, host: "127.0.0.1", allowPrivateTargets: ["127.0.0.1/32"] },
      logger: pino({ level: "silent" }),
    });
  });
  after(() => host.close());

  it("says what would go and exits 2 without --yes; deletes with it; a second delete fails naming not_found", async () => {
    const key = await host.createKey("deleter", 10);
    const created = await fetch(`${host.url}/v1/datasets`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ ...validDataset(), name: "Doomed" }),
    });
    const datasetId = ((await created.json()) as { dataset: { id: string } }).dataset.id;
    const status = async () =>
      (await fetch(`${host.url}/v1/datasets/${datasetId}`, { headers: { authorization: `Bearer ${key}` } })).status;
    const env = { ...process.env, GLEANER_URL: host.url, GLEANER_API_KEY: key };

    const asked = await run(process.execPath, [bin, "datasets", "delete", datasetId], { env }).catch((e) => e);
    expect(asked.code).to.equal(2);
    expect(asked.stdout).to.contain('This deletes "Doomed"').and.to.contain("--yes");
    expect(await status()).to.equal(200);

    const { stdout } = await run(process.execPath, [bin, "datasets", "delete", datasetId, "--yes"], { env });
    expect(stdout).to.equal(`Deleted "Doomed" (${datasetId}).\n`);
    expect(await status()).to.equal(404);

    const again = await run(process.execPath, [bin, "datasets", "delete", datasetId, "--yes"], { env }).catch((e) => e);
    expect(again.code).to.not.equal(0);
    expect(again.stderr).to.contain("not_found");
  });
});
