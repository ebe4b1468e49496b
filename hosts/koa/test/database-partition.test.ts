import { createServer, type Server, type Socket, connect } from "node:net";
import type { AddressInfo } from "node:net";
import { type BooksSite, booksDataset, type Client, makeClient, startBooksSite } from "@gleaner/conformance";
import { type RunningHost, startHost } from "@gleaner/koa";
import { expect } from "chai";
import { admin, adminUrl, ownDatabase } from "./support/postgres-admin.js";
import { pino } from "pino";

/**
 * A network partition between the host and PostgreSQL (issue 33): no reset, no refusal, the packets
 * just stop. A TCP relay in front of the server stops forwarding (it reads nothing more from either
 * side, so bytes wait as they would for TCP to retransmit them) and later resumes. Every API request
 * must answer within 15 s of the partition (200, or 503 with Retry-After), requests that already held
 * a connection included; once the relay forwards again, every run ends and none is charged twice.
 */
const partitionMs = Number(process.env.GLEANER_PARTITION_MS ?? 20_000);
const boundMs = 15_000;

/**
 * A relay to `target` that can stop forwarding in both directions (a partition) and resume. While
 * cut, what either side sends is held, not passed on and not refused, as TCP holds unacknowledged
 * bytes to send again; once healed it is passed on in order.
 */
const startRelay = async (target: { host: string; port: number }) => {
  const sockets = new Set<Socket>();
  const held: Array<[Socket, Buffer]> = [];
  let cut = false;
  const forward = (from: Socket, to: Socket) =>
    from.on("data", (chunk: Buffer) => {
      if (cut) held.push([to, chunk]);
      else to.write(chunk);
    });
  const server: Server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    for (const socket of [client, upstream]) sockets.add(socket);
    forward(client, upstream);
    forward(upstream, client);
    const close = () => {
      for (const socket of [client, upstream]) {
        sockets.delete(socket);
        socket.destroy();
      }
    };
    for (const socket of [client, upstream]) socket.on("close", close).on("error", close);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    partition: () => {
      cut = true;
    },
    heal: () => {
      cut = false;
      for (const [to, chunk] of held.splice(0)) if (!to.destroyed) to.write(chunk);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
};

const terminal = new Set(["succeeded", "failed", "blocked", "held"]);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("a network partition between the host and PostgreSQL", function () {
  this.timeout(240_000);
  const database = `gleaner_partition_${globalThis.crypto.randomUUID().replaceAll("-", "").slice(0, 10)}`;
  let reachable = false;
  let relay: Awaited<ReturnType<typeof startRelay>>;
  let site: BooksSite;
  let host: RunningHost;
  let client: Client;
  let key: string;

  before(async function () {
    const ownUrl = await ownDatabase(this, database);
    reachable = true;
    const target = new URL(adminUrl);
    relay = await startRelay({ host: target.hostname, port: Number(target.port || 5432) });
    site = await startBooksSite({ delayMs: 200, pageSize: 100 });
    const url = ownUrl;
    url.host = `127.0.0.1:${relay.port}`;
    host = await startHost({
      config: {
        port: 0,
        host: "127.0.0.1",
        storage: "postgres",
        queue: "agenda",
        allowPrivateTargets: ["127.0.0.1"],
        variables: {
          GLEANER_STORAGE: "postgres",
          GLEANER_QUEUE: "agenda",
          GLEANER_POSTGRES_URL: url.href,
          GLEANER_AGENDA_PROCESS_EVERY_MS: "500",
        },
      },
      logger: pino({ level: process.env.GLEANER_FAULT_LOG_LEVEL ?? "silent" }),
    });
    key = await host.createKey(`partition-${database}`, 10_000);
    client = makeClient(host.url, key);
  });

  after(async () => {
    if (!reachable) return;
    relay?.heal();
    await host?.close();
    await relay?.close();
    await site?.close();
    await admin(`drop database if exists ${database} with (force)`);
  });

  it("answers every request within 15 s (200 or 503 with Retry-After), then ends every run, charged once", async () => {
    const datasets: string[] = [];
    for (let i = 0; i < 3; i++) {
      const created = await client.post("/v1/datasets", booksDataset(site));
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      datasets.push(created.body.dataset.id);
    }
    const runIds: string[] = [];
    for (const id of datasets) {
      const started = await client.post(`/v1/datasets/${id}/runs`);
      expect(started.status).to.equal(202);
      runIds.push(started.body.runId);
    }
    await sleep(1_500); // the runs are reading (10 pages at 200 ms each)

    const answers: Array<{ what: string; status: number; ms: number; code?: string; retryAfter: string | null }> = [];
    const ask = async (what: string, method: string, path: string) => {
      const started = Date.now();
      const answer = await fetch(`${host.url}${path}`, { method, headers: { authorization: `Bearer ${key}` } });
      const body = (await answer.json()) as { error?: { code?: string }; runId?: string };
      if (answer.status === 202 && body.runId) runIds.push(body.runId);
      answers.push({
        what,
        status: answer.status,
        ms: Date.now() - started,
        ...(body.error?.code ? { code: body.error.code } : {}),
        retryAfter: answer.headers.get("retry-after"),
      });
    };
    // Requests in flight as the partition starts (some hold a connection already), and during it.
    const inFlight = [
      ...datasets.map((id) => ask("rows", "GET", `/v1/datasets/${id}/rows`)),
      ask("datasets", "GET", "/v1/datasets"),
      ask("usage", "GET", "/v1/usage"),
      ...runIds.map((id) => ask("run", "GET", `/v1/runs/${id}`)),
    ];
    relay.partition();
    const during: Array<Promise<void>> = [];
    const partitionEnds = Date.now() + partitionMs;
    while (Date.now() < partitionEnds - boundMs) {
      during.push(
        ask("datasets", "GET", "/v1/datasets"),
        ask("start a run", "POST", `/v1/datasets/${datasets[0]}/runs`),
      );
      await sleep(1_000);
    }
    await Promise.all([...inFlight, ...during]);
    relay.heal();

    const slow = answers.filter((a) => a.ms > boundMs);
    expect(slow, "answers later than 15 s").to.deep.equal([]);
    const wrong = answers.filter(
      (a) => !(a.status < 300 || a.status === 409 || (a.status === 503 && a.retryAfter !== null)),
    );
    expect(wrong, "only 2xx, 409 and 503 with Retry-After").to.deep.equal([]);
    expect(
      answers.filter((a) => a.status === 503).length,
      "the partition is seen as the database being away",
    ).to.be.greaterThan(0);

    // Every run ends once the relay forwards again; none is charged twice.
    const deadline = Date.now() + 150_000;
    const pending = new Set(runIds);
    while (pending.size > 0 && Date.now() < deadline) {
      for (const id of [...pending]) {
        const answer = await client.get(`/v1/runs/${id}`);
        if (answer.status === 200 && terminal.has(answer.body.run.status)) pending.delete(id);
      }
      await sleep(250);
    }
    expect([...pending], "runs still unfinished").to.deep.equal([]);
    const ended = await Promise.all(runIds.map(async (id) => (await client.get(`/v1/runs/${id}`)).body.run));
    expect(
      ended.filter((run) => run.error?.includes("internal error")),
      "runs failed by the partition instead of resuming",
    ).to.deep.equal([]);
    const usage = await client.get("/v1/usage");
    const charged = (usage.body.entries as Array<{ kind: string; runId: string | null }>)
      .filter((e) => e.kind === "charge")
      .map((e) => e.runId);
    expect(new Set(charged).size, "no run charged twice").to.equal(charged.length);
    expect([...charged].sort()).to.deep.equal(
      ended
        .filter((run) => run.status === "succeeded")
        .map((run) => run.id)
        .sort(),
    );
    console.log(
      `      answers during the partition: ${JSON.stringify(answers.map((a) => `${a.what} ${a.status} ${a.ms}ms`))}`,
    );
  });
});
