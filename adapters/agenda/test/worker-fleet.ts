import { type ChildProcess, spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type BooksSite, booksDataset, type Client, loadBooks, startBooksSite } from "@gleaner/conformance";
import { type RunningHost, startHost } from "@gleaner/koa";
import { PostgresStoreLive } from "@gleaner/postgres";
import { pino } from "pino";
import { AgendaRunQueueLive } from "../src/index.js";
import { freshName, sql } from "./support.js";

/**
 * The crash tests' harness: a database of their own, an API-only host, `gleaner worker` processes
 * that are SIGKILLed at random moments and restarted, and drivers that run datasets one run after
 * another. crash.test.ts checks runs and charges with it; webhooks-crash.test.ts the outbox.
 */
// The bin, as a team runs it: the CLI from its bundle.
const cli = join(dirname(fileURLToPath(import.meta.url)), "../../../hosts/koa/bin/gleaner.js");
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const terminal = new Set(["succeeded", "failed", "blocked", "held"]);

/** The conformance suite's books dataset with three columns: small runs, many of them. */
export const crashDatasetBody = (site: BooksSite, n: number) =>
  booksDataset(site, "next-link", (body) => {
    body.name = `Crash books ${n} ${globalThis.crypto.randomUUID().slice(0, 8)}`;
    body.columns = body.columns.slice(0, 3);
    body.source.fields = body.source.fields.slice(0, 3);
    delete body.source.maxPages;
  });

/** A fresh database on the test server; the workers use the default schema names, as a deployment would. */
export const crashDatabase = async (baseUrl: string) => {
  const database = freshName("gl_crash_");
  const parsed = new URL(baseUrl);
  parsed.pathname = `/${database}`;
  await sql(baseUrl, `create database "${database}"`);
  return { url: parsed.toString(), drop: () => sql(baseUrl, `drop database if exists "${database}" with (force)`) };
};

/** The API process: enqueues, never consumes (worker: false), as an API-only deployment. */
export const startApi = (url: string): Promise<RunningHost> =>
  startHost({
    worker: false,
    overrides: { store: PostgresStoreLive({ url }), queue: AgendaRunQueueLive({ backend: "postgres", url }) },
    config: {
      port: 0,
      host: "127.0.0.1",
      logLevel: "silent",
      storage: "postgres",
      queue: "agenda",
      postgresUrl: url,
      allowPrivateTargets: ["127.0.0.1/32"],
      // One owner drives every run here; the per-owner limits are not under test.
      ownerLimits: { maxActiveRuns: 1_000, maxRunsPerHour: 1_000_000, maxDatasets: 1_000_000 },
    },
    logger: pino({ level: "silent" }),
  });

const exited = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((resolve) => child.once("exit", () => resolve()));

/** `count` worker processes on `url`, with `env` added to each one's environment. */
export const workerFleet = (url: string, count: number, env: Record<string, string>) => {
  const processes = new Map<number, ChildProcess>();
  let kills = 0;
  const spawnWorker = (slot: number) => {
    const child = spawn(process.execPath, [cli, "worker"], {
      env: {
        ...process.env,
        GLEANER_STORAGE: "postgres",
        GLEANER_QUEUE: "agenda",
        GLEANER_POSTGRES_URL: url,
        GLEANER_ALLOW_PRIVATE_TARGETS: "127.0.0.1/32",
        GLEANER_WORKER_CONCURRENCY: "2",
        GLEANER_AGENDA_PROCESS_EVERY_MS: "1000",
        GLEANER_LOG_LEVEL: "warn",
        ...env,
      },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let errors = "";
    child.stderr?.on("data", (chunk) => {
      errors = `${errors}${chunk}`.slice(-2000);
    });
    child.on("exit", (code, signal) => {
      if (signal !== "SIGKILL" && signal !== "SIGTERM" && code !== 0) {
        console.error(`[crash] worker ${slot} exited with code ${code}: ${errors}`);
      }
    });
    processes.set(slot, child);
  };
  for (let slot = 0; slot < count; slot++) spawnWorker(slot);
  return {
    kills: () => kills,
    /** SIGKILLs a random worker every 1.5-3.5 s and restarts it at once, until `target` kills. */
    killRandomly: async (target: number) => {
      while (kills < target) {
        await sleep(1_500 + Math.random() * 2_000);
        const slot = Math.floor(Math.random() * count);
        const child = processes.get(slot);
        if (!child) continue;
        child.kill("SIGKILL");
        await exited(child);
        kills++;
        spawnWorker(slot);
      }
    },
    stop: async () => {
      for (const child of processes.values()) child.kill("SIGKILL");
      await Promise.all([...processes.values()].map(exited));
    },
  };
};

/**
 * Waits on progress, not on a clock: under load workers take seconds to start, so a fixed wait
 * turned slowness into "lost runs". Progress is any run changing state; a run counts as lost
 * (null) only when nothing at all has moved for stallMs.
 */
export const progressWatch = (stallMs = 300_000) => {
  let lastProgressAt = Date.now();
  const waitTerminal = async (client: Client, runId: string): Promise<string | null> => {
    let seen: string | undefined;
    for (;;) {
      const answer = await client.get(`/v1/runs/${runId}`);
      const status: string | undefined = answer.body?.run?.status;
      if (seen !== undefined && status !== seen) lastProgressAt = Date.now();
      seen = status;
      if (status !== undefined && terminal.has(status)) {
        lastProgressAt = Date.now();
        return status;
      }
      if (Date.now() - lastProgressAt > stallMs) return null;
      await sleep(50);
    }
  };
  return { waitTerminal, restart: () => void (lastProgressAt = Date.now()) };
};

/**
 * Each dataset runs one run after another (one queued/running run per dataset) until `done()`;
 * prices change now and then so later runs write revisions. Returns every run started.
 */
export const driveRuns = async (
  client: Client,
  site: BooksSite,
  datasetIds: ReadonlyArray<string>,
  done: () => boolean,
  waitTerminal: (client: Client, runId: string) => Promise<string | null>,
): Promise<string[]> => {
  const runIds: string[] = [];
  const drive = async (datasetId: string) => {
    while (!done()) {
      if (Math.random() < 0.3) {
        const book = site.books[Math.floor(Math.random() * site.books.length)];
        if (book) site.setPrice(book.slug, Math.round(Math.random() * 5000) / 100 + 1);
      }
      const started = await client.post(`/v1/datasets/${datasetId}/runs`);
      if (started.status !== 202)
        throw new Error(`Starting a run answered ${started.status}: ${JSON.stringify(started.body)}`);
      runIds.push(started.body.runId);
      // A run stranded by a kill waits for its lock to expire; a run that never ends stops this
      // driver (another POST would only answer 409) and is counted as lost by the caller.
      if ((await waitTerminal(client, started.body.runId)) === null) return;
    }
  };
  await Promise.all(datasetIds.map(drive));
  return runIds;
};

/** Everything a crash test stands on: its database, the books site, the API process and the workers. */
export const startCrashScene = async (baseUrl: string, workers: number, env: Record<string, string>) => {
  const db = await crashDatabase(baseUrl);
  const site = await startBooksSite({ books: (await loadBooks()).slice(0, 60), pageSize: 20, delayMs: 60 });
  const api = await startApi(db.url);
  const fleet = workerFleet(db.url, workers, env);
  return {
    url: db.url,
    site,
    api,
    fleet,
    close: async () => {
      await fleet.stop();
      await api.close();
      await site.close();
      await db.drop();
    },
  };
};
export type CrashScene = Awaited<ReturnType<typeof startCrashScene>>;

/** `count` crash datasets of one owner; their ids. */
export const createCrashDatasets = async (client: Client, site: BooksSite, count: number): Promise<string[]> => {
  const ids: string[] = [];
  for (let n = 0; n < count; n++) {
    const created = await client.post("/v1/datasets", crashDatasetBody(site, n));
    if (created.status !== 201)
      throw new Error(`Creating a dataset answered ${created.status}: ${JSON.stringify(created.body)}`);
    ids.push(created.body.dataset.id);
  }
  return ids;
};
