import { type ChildProcess, spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type BooksSite, booksDataset, type Client, loadBooks, makeClient, startBooksSite } from "@gleaner/conformance";
import { type RunningHost, startHost } from "@gleaner/koa";
import { PostgresStoreLive } from "@gleaner/postgres";
import { expect } from "chai";
import { after, before, describe, it } from "mocha";
import { pino } from "pino";
import { AgendaRunQueueLive } from "../src/index.js";
import { freshName, sql, whenPostgresReachable } from "./support.js";

/**
 * Several `gleaner worker` processes execute many runs of the books site while they are killed
 * with SIGKILL at random moments and restarted. Afterwards every run must be terminal, charged at
 * most once, its revisions written once with gapless sequences, and the ledger must equal the
 * pages of the accepted runs.
 */
const workers = 3;
const targetKills = 22;
const datasets = 8;
const lockLifetimeMs = 3_000;

const cli = join(dirname(fileURLToPath(import.meta.url)), "../../../hosts/koa/dist/cli.js");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const terminal = new Set(["succeeded", "failed", "blocked", "held"]);

/** The conformance suite's books dataset with three columns: small runs, many of them. */
const datasetBody = (site: BooksSite, n: number) =>
  booksDataset(site, "next-link", (body) => {
    body.name = `Crash books ${n} ${globalThis.crypto.randomUUID().slice(0, 8)}`;
    body.columns = body.columns.slice(0, 3);
    body.source.fields = body.source.fields.slice(0, 3);
    delete body.source.maxPages;
  });

await whenPostgresReachable("crash test: gleaner workers killed with SIGKILL", (baseUrl) => {
  describe("crash test: gleaner workers on postgres + agenda(postgres), killed with SIGKILL", function () {
    // Bounded by progress (waitTerminal's stall window), not by the clock: slow is not lost.
    this.timeout(0);
    // A database of its own: the workers use the default schema names, as a deployment would.
    const database = freshName("gl_crash_");
    const url = (() => {
      const parsed = new URL(baseUrl);
      parsed.pathname = `/${database}`;
      return parsed.toString();
    })();
    let site: BooksSite;
    let api: RunningHost;
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
          GLEANER_AGENDA_LOCK_LIFETIME_MS: String(lockLifetimeMs),
          GLEANER_AGENDA_PROCESS_EVERY_MS: "1000",
          GLEANER_LOG_LEVEL: "warn",
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

    const exited = (child: ChildProcess) =>
      child.exitCode !== null || child.signalCode !== null
        ? Promise.resolve()
        : new Promise<void>((resolve) => child.once("exit", () => resolve()));

    before(async () => {
      await sql(baseUrl, `create database "${database}"`);
      site = await startBooksSite({ books: (await loadBooks()).slice(0, 60), pageSize: 20, delayMs: 60 });
      // The API process: enqueues, never consumes (worker: false), as an API-only deployment.
      api = await startHost({
        worker: false,
        overrides: {
          store: PostgresStoreLive({ url }),
          queue: AgendaRunQueueLive({ backend: "postgres", url }),
        },
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
      for (let slot = 0; slot < workers; slot++) spawnWorker(slot);
    });

    after(async () => {
      for (const child of processes.values()) child.kill("SIGKILL");
      await Promise.all([...processes.values()].map(exited));
      await api?.close();
      await site?.close();
      await sql(baseUrl, `drop database if exists "${database}" with (force)`);
    });

    // Waits on progress, not on a clock: under load workers take seconds to start, so a fixed
    // wait turned slowness into "lost runs". Progress is any run of this test changing state; a
    // run counts as lost only when nothing at all has moved for stallMs.
    const stallMs = 300_000;
    let lastProgressAt = Date.now();
    const waitTerminal = async (client: Client, runId: string) => {
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

    it("loses no run, charges no run twice and writes no revision twice across 20+ kills", async () => {
      lastProgressAt = Date.now();
      const key = await api.createKey(`crash-${globalThis.crypto.randomUUID()}`, 1_000_000);
      const client = makeClient(api.url, key);
      const ids: string[] = [];
      for (let n = 0; n < datasets; n++) {
        const created = await client.post("/v1/datasets", datasetBody(site, n));
        expect(created.status, JSON.stringify(created.body)).to.equal(201);
        ids.push(created.body.dataset.id);
      }

      // Killer: SIGKILL a random worker every 1.5-3.5 s, restart it at once, until enough kills.
      const killing = (async () => {
        while (kills < targetKills) {
          await sleep(1_500 + Math.random() * 2_000);
          const slot = Math.floor(Math.random() * workers);
          const child = processes.get(slot);
          if (!child) continue;
          child.kill("SIGKILL");
          await exited(child);
          kills++;
          spawnWorker(slot);
        }
      })();

      // Drivers: each dataset runs one run after another (one queued/running run per dataset)
      // for as long as the killing lasts; prices change now and then so later runs write revisions.
      const books = site.books;
      const runIds: string[] = [];
      let done = false;
      const drive = async (datasetId: string) => {
        while (!done) {
          if (Math.random() < 0.3) {
            const book = books[Math.floor(Math.random() * books.length)];
            if (book) site.setPrice(book.slug, Math.round(Math.random() * 5000) / 100 + 1);
          }
          const started = await client.post(`/v1/datasets/${datasetId}/runs`);
          expect(started.status, JSON.stringify(started.body)).to.equal(202);
          runIds.push(started.body.runId);
          // A run stranded by a kill waits for its lock to expire; a run that never ends stops this
          // driver (another POST would only answer 409) and is counted as lost below.
          if ((await waitTerminal(client, started.body.runId)) === null) return;
        }
      };
      const driving = Promise.all(ids.map(drive));
      await killing;
      done = true;
      await driving;

      // Every run must reach a terminal state with the workers left running.
      const statuses = await Promise.all(runIds.map((id) => waitTerminal(client, id)));
      const lost = statuses.filter((s) => s === null).length;

      const schema = "gleaner";
      const q = async (text: string) => (await sql<{ n: string }>(url, text))[0]?.n ?? "0";
      const stuck = Number(await q(`select count(*) as n from ${schema}.runs where status in ('queued', 'running')`));
      const doubleCharges = Number(
        await q(
          `select count(*) as n from (select run_id from ${schema}.ledger_entries where kind = 'charge'
             group by run_id having count(*) > 1) d`,
        ),
      );
      const duplicateRevisions = Number(
        await q(
          `select count(*) as n from (select row_id, run_id from ${schema}.revisions where run_id is not null
             group by row_id, run_id having count(*) > 1
           union all select dataset_id, null from ${schema}.revisions group by dataset_id, sequence having count(*) > 1) d`,
        ),
      );
      const sequenceGaps = Number(
        await q(
          `select count(*) as n from ${schema}.datasets d
             left join (select dataset_id, count(*) as c, min(sequence) as lo, max(sequence) as hi
                          from ${schema}.revisions group by dataset_id) r on r.dataset_id = d.id
            where coalesce(r.c, 0) <> d.last_sequence or (r.c > 0 and (r.lo <> 1 or r.hi <> d.last_sequence))`,
        ),
      );
      const ledger = Number(
        await q(`select coalesce(sum(-amount), 0) as n from ${schema}.ledger_entries where kind = 'charge'`),
      );
      const acceptedPages = Number(
        await q(`select coalesce(sum(charged_pages), 0) as n from ${schema}.runs where status = 'succeeded'`),
      );
      const chargesOfUnacceptedRuns = Number(
        await q(
          `select count(*) as n from ${schema}.ledger_entries l join ${schema}.runs r on r.id = l.run_id
            where l.kind = 'charge' and (r.status <> 'succeeded' or l.pages is distinct from r.charged_pages)`,
        ),
      );
      const [counts] = await sql<{ runs: string; succeeded: string; reclaimed: string }>(
        url,
        `select count(*) as runs, count(*) filter (where status = 'succeeded') as succeeded,
                count(*) filter (where attempts > 1) as reclaimed from ${schema}.runs`,
      );

      console.log(
        `crash test: runs=${runIds.length} kills=${kills} lost=${lost + stuck} double_charges=${doubleCharges} ` +
          `duplicate_revisions=${duplicateRevisions} sequence_gaps=${sequenceGaps} ledger=${ledger} ` +
          `accepted_pages=${acceptedPages} succeeded=${counts?.succeeded} reclaimed_after_kill=${counts?.reclaimed}`,
      );
      expect(kills).to.be.at.least(20);
      expect(Number(counts?.runs)).to.equal(runIds.length);
      expect(lost + stuck, "lost runs").to.equal(0);
      expect(doubleCharges, "double charges").to.equal(0);
      expect(duplicateRevisions, "duplicate revisions").to.equal(0);
      expect(sequenceGaps, "sequence gaps").to.equal(0);
      expect(chargesOfUnacceptedRuns, "charges that do not match an accepted run").to.equal(0);
      expect(ledger, "ledger = pages of the accepted runs").to.equal(acceptedPages);
      expect(Number(counts?.succeeded)).to.be.greaterThan(0);
    });
  });
});
