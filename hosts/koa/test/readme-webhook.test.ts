import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { registerWebhook, createGleanerClient } from "@gleaner/client";
import { booksDataset, loadBooks, makeClient, startBooksSite, waitForRun, type BooksSite } from "@gleaner/conformance";
import { type RunningHost, startHost } from "@gleaner/koa";
import { expect } from "chai";
import { pino } from "pino";
import { freePort } from "./support/free-port.js";

/**
 * The webhook receiver of the guide "Data out", run as written: the block tagged `js webhook-receiver`
 * is read from docs/guides/data-out.md, saved next to this package (so `standardwebhooks` resolves) and started with the
 * secret @gleaner/client's registerWebhook returned. A run's deliveries must come out verified;
 * a body not signed by Gleaner must not.
 */
const root = fileURLToPath(new URL("../../../", import.meta.url));
const receiverCode = (): string => {
  const match = /```js webhook-receiver\n([\s\S]*?)```/.exec(readFileSync(`${root}docs/guides/data-out.md`, "utf8"));
  if (!match?.[1]) throw new Error("docs/guides/data-out.md has no ```js webhook-receiver block.");
  return match[1];
};
describe("docs/guides/data-out.md: the webhook receiver verifies Gleaner's deliveries", function () {
  this.timeout(60_000);
  const file = fileURLToPath(new URL(`../readme-receiver-${process.pid}.mjs`, import.meta.url));
  let host: RunningHost;
  let site: BooksSite;
  let receiver: ChildProcess;
  let output = "";
  before(async () => {
    site = await startBooksSite({ books: (await loadBooks()).slice(0, 20) });
    host = await startHost({
      config: {
        port: 0,
        host: "127.0.0.1",
        logLevel: "silent",
        allowPrivateTargets: ["127.0.0.1/32"],
        webhooks: { timeoutMs: 2_000, pollMs: 250, retryBaseMs: 50 },
      },
      logger: pino({ level: "silent" }),
    });
  });
  after(async () => {
    receiver?.kill("SIGKILL");
    rmSync(file, { force: true });
    await host?.close();
    await site?.close();
  });

  it("prints each verified event and answers 204; an unsigned body is refused", async () => {
    const key = await host.createKey(`readme-webhook-${globalThis.crypto.randomUUID()}`, 100);
    const port = await freePort();
    const { secret, webhook } = await registerWebhook(createGleanerClient({ baseUrl: host.url, apiKey: key }), {
      url: `http://127.0.0.1:${port}/`,
      events: ["run.finished", "rows.changed"],
    });
    expect(webhook.url).to.equal(`http://127.0.0.1:${port}/`);
    writeFileSync(file, receiverCode());
    receiver = spawn(process.execPath, [file], {
      env: { ...process.env, GLEANER_WEBHOOK_SECRET: secret, PORT: String(port) },
      stdio: ["ignore", "pipe", "inherit"],
    });
    receiver.stdout?.on("data", (chunk) => {
      output += String(chunk);
    });
    const unsigned = async () => {
      for (;;) {
        const answer = await fetch(`http://127.0.0.1:${port}/`, { method: "POST", body: "{}" }).catch(() => null);
        if (answer) return answer.status;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    expect(await unsigned()).to.equal(400);

    const client = makeClient(host.url, key);
    const created = await client.post("/v1/datasets", booksDataset(site));
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const started = await client.post(`/v1/datasets/${created.body.dataset.id}/runs`);
    const run = await waitForRun(client, started.body.runId);
    expect(run.status).to.equal("succeeded");
    const deadline = Date.now() + 20_000;
    while (output.trim().split("\n").length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const events = output
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(events[0]).to.equal(null);
    expect(events.slice(1).map((e) => e.type)).to.deep.equal(["run.finished", "rows.changed"]);
    expect(events[1].data).to.deep.include({ runId: run.id, status: "succeeded" });
  });
});
