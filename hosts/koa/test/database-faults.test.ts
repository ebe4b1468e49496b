import { type BooksSite, booksDataset, type Client, makeClient, startBooksSite } from "@gleaner/conformance";
import { type RunningHost, startHost } from "@gleaner/koa";
import { expect } from "chai";
import { admin, ownDatabase } from "./support/postgres-admin.js";
import { pino } from "pino";

/**
 * Database faults (issue 16): PostgreSQL backends are terminated again and again while runs work,
 * then the database refuses every connection for a while (ALTER DATABASE … ALLOW_CONNECTIONS false
 * plus terminating its backends: the shared server keeps running for everyone else). The process
 * must stay up (an unheard pg "error" event would fail this test as an uncaught exception), clients
 * see 200 or 503 `storage_unavailable` with Retry-After (never a 500), and afterwards every run ends
 * and none is charged twice. GLEANER_FAULT_DOWN_MS sets how long the database stays closed (6 s).
 */
const downMs = Number(process.env.GLEANER_FAULT_DOWN_MS ?? 6_000);

const terminal = new Set(["succeeded", "failed", "blocked", "held"]);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("database faults: dropped connections and a database that goes away", function () {
  this.timeout(240_000);
  const database = `gleaner_faults_${globalThis.crypto.randomUUID().replaceAll("-", "").slice(0, 10)}`;
  const terminateAll = () =>
    admin(`select pg_terminate_backend(pid) from pg_stat_activity where datname = '${database}'`);
  let reachable = false;
  let site: BooksSite;
  let host: RunningHost;
  let client: Client;
  let key: string;
  const previousProcessEvery = process.env.GLEANER_AGENDA_PROCESS_EVERY_MS;

  before(async function () {
    const ownUrl = await ownDatabase(this, database);
    reachable = true;
    site = await startBooksSite({ delayMs: 20, pageSize: 100 });
    process.env.GLEANER_AGENDA_PROCESS_EVERY_MS = "500";
    const url = ownUrl;
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
    key = await host.createKey(`faults-${database}`, 10_000);
    client = makeClient(host.url, key);
  });

  after(async () => {
    if (previousProcessEvery === undefined) delete process.env.GLEANER_AGENDA_PROCESS_EVERY_MS;
    else process.env.GLEANER_AGENDA_PROCESS_EVERY_MS = previousProcessEvery;
    if (!reachable) return;
    await admin(`alter database ${database} allow_connections true`).catch(() => undefined);
    await host?.close();
    await site?.close();
    await admin(`drop database if exists ${database} with (force)`);
  });

  it("stays up, answers 503 storage_unavailable while the database is away, and every run ends charged once", async () => {
    const datasets: string[] = [];
    for (let i = 0; i < 6; i++) {
      const created = await client.post("/v1/datasets", booksDataset(site));
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      datasets.push(created.body.dataset.id);
    }
    const runIds: string[] = [];
    const statuses = new Map<number, number>();
    const unexpected: string[] = [];
    const note = (status: number, body: { error?: { code?: string } }, retryAfter: string | null) => {
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      const fine = status < 300 || (status === 503 && body.error?.code === "storage_unavailable" && retryAfter);
      if (!fine && status !== 409) unexpected.push(`${status} ${JSON.stringify(body)}`);
    };
    const startRun = async (datasetId: string) => {
      const answer = await fetch(`${host.url}/v1/datasets/${datasetId}/runs`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}` },
      });
      const body = await answer.json();
      note(answer.status, body, answer.headers.get("retry-after"));
      if (answer.status === 202) runIds.push(body.runId);
    };
    let polling = true;
    const poller = (async () => {
      while (polling) {
        const answer = await fetch(`${host.url}/v1/datasets`, { headers: { authorization: `Bearer ${key}` } });
        note(answer.status, await answer.json(), answer.headers.get("retry-after"));
        await sleep(50);
      }
    })();

    // A storm: 20 rounds of terminating every backend of the database in 8 s, runs in flight.
    for (const id of datasets) await startRun(id);
    for (let round = 0; round < 20; round++) {
      await terminateAll();
      await sleep(400);
      if (round % 5 === 4) for (const id of datasets) await startRun(id);
    }

    // The database goes away: no connection is accepted; run creation answers 503 meanwhile.
    await admin(`alter database ${database} allow_connections false`);
    await terminateAll();
    const downUntil = Date.now() + downMs;
    while (Date.now() < downUntil) {
      for (const id of datasets.slice(0, 2)) await startRun(id);
      await sleep(500);
    }
    await admin(`alter database ${database} allow_connections true`);
    const backAt = Date.now();

    // Every run ends once the database is back.
    const deadline = Date.now() + 150_000;
    const pending = new Set(runIds);
    while (pending.size > 0 && Date.now() < deadline) {
      for (const id of [...pending]) {
        const answer = await client.get(`/v1/runs/${id}`);
        if (answer.status === 200 && terminal.has(answer.body.run.status)) pending.delete(id);
      }
      await sleep(250);
    }
    polling = false;
    await poller;
    if (pending.size > 0) {
      // What a stuck run was doing, and what the database's sessions were doing meanwhile.
      for (const id of pending)
        console.log(`      unfinished ${id}: ${JSON.stringify((await client.get(`/v1/runs/${id}/trace`)).body)}`);
      const sessions = await admin(
        `select pid, state, wait_event_type, wait_event, left(query, 120) as query, now() - state_change as for
         from pg_stat_activity where datname = '${database}'`,
      );
      console.log(`      sessions: ${JSON.stringify(sessions)}`);
    }
    console.log(
      `      answers seen (status: count): ${JSON.stringify(Object.fromEntries(statuses))}; runs started ${runIds.length}`,
    );
    expect(unexpected, "only 2xx, 409 run_in_progress and 503 storage_unavailable").to.deep.equal([]);
    expect(statuses.get(503) ?? 0, "the database being away is a 503").to.be.greaterThan(0);
    expect([...pending], "runs still unfinished").to.deep.equal([]);

    const usage = await client.get("/v1/usage");
    const charges = (usage.body.entries as Array<{ kind: string; runId: string | null; amount: number }>).filter(
      (e) => e.kind === "charge",
    );
    const chargedRuns = charges.map((e) => e.runId);
    expect(new Set(chargedRuns).size, "no run charged twice").to.equal(chargedRuns.length);
    const ended = await Promise.all(runIds.map(async (id) => (await client.get(`/v1/runs/${id}`)).body.run));
    const outcomes = ended.map((run) => `${run.status}${run.error ? ` (${run.error.slice(0, 80)})` : ""}`);
    const lag = Math.round((Date.now() - backAt) / 1000);
    console.log(`      run outcomes: ${JSON.stringify(outcomes)}; all ended ${lag} s after the database returned`);
    // A dropped connection is retried, never a reason to fail a run: the runs resume when it returns.
    const internal = outcomes.filter((outcome) => outcome.includes("internal error"));
    expect(internal, "runs failed by a dropped connection instead of resuming").to.deep.equal([]);
    const succeeded = ended.filter((run) => run.status === "succeeded").map((run) => run.id);
    expect([...chargedRuns].sort()).to.deep.equal([...succeeded].sort());
  });
});
