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

describe("gleaner datasets delete and gleaner keys, through the API", function () {
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

  it("gleaner keys new prints a working key once; keys list shows it without secrets; keys revoke refuses it at once", async () => {
    const key = await host.createKey("key-keeper", 1);
    const env = { ...process.env, GLEANER_URL: host.url, GLEANER_API_KEY: key };
    const made = await run(process.execPath, [bin, "keys", "new", "--name", "laptop"], { env });
    const secret = made.stdout.trim();
    expect(made.stdout).to.equal(`${secret}\n`);
    expect(secret).to.match(/^gl_/);
    const usable = await fetch(`${host.url}/v1/usage`, { headers: { authorization: `Bearer ${secret}` } });
    expect(usable.status).to.equal(200);
    const listed = await run(process.execPath, [bin, "keys", "list"], { env });
    const lines = listed.stdout.trim().split("\n");
    expect(lines).to.have.length(2);
    const otherId = lines[1]!.split(" ")[0]!;
    expect(made.stderr).to.contain(`Key ${otherId} (laptop) made`).and.not.contain(secret);
    expect(lines[1])
      .to.contain("laptop")
      .and.contain(`${secret.slice(0, 7)}…${secret.slice(-4)}`);
    expect(listed.stdout).to.not.contain(secret).and.not.contain(key);
    const revoked = await run(process.execPath, [bin, "keys", "revoke", otherId], { env });
    expect(revoked.stdout).to.equal(`Revoked ${otherId}.\n`);
    const refused = await fetch(`${host.url}/v1/usage`, { headers: { authorization: `Bearer ${secret}` } });
    expect(refused.status).to.equal(401);
  });

  it("gleaner keys new refuses an empty name naming the field, and needs a key that works", async () => {
    const key = await host.createKey("key-namer", 1);
    const env = { ...process.env, GLEANER_URL: host.url, GLEANER_API_KEY: key };
    const empty = await run(process.execPath, [bin, "keys", "new", "--name", ""], { env }).catch((e) => e);
    expect(empty.code).to.not.equal(0);
    expect(empty.stdout).to.equal("");
    expect(empty.stderr).to.contain("validation_error").and.contain("name");
    const bad = { ...env, GLEANER_API_KEY: "gl_not_a_key" };
    const refused = await run(process.execPath, [bin, "keys", "new"], { env: bad }).catch((e) => e);
    expect(refused.code).to.not.equal(0);
    expect(refused.stderr).to.contain("unauthorized");
  });
});
