import { type DatasetId, type OwnerId, type RoutineTick, type RunId, type RunJob, sha256HexOf } from "@gleaner/core";
import { expect } from "chai";
import * as Cause from "effect/Cause";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as Layer from "effect/Layer";
import { after, describe, it } from "mocha";
import pg from "pg";
import { AgendaRunQueueLive, routineJob } from "../src/index.js";
import {
  type Built,
  build,
  dropSchema,
  expectOwnersServedInTurn,
  freshName,
  sql,
  until,
  whenPostgresReachable,
} from "./support.js";

const runJob = (): RunJob => ({
  runId: globalThis.crypto.randomUUID() as RunId,
  datasetId: globalThis.crypto.randomUUID() as DatasetId,
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

await whenPostgresReachable("@gleaner/agenda on PostgreSQL", (url) => {
  describe("@gleaner/agenda on PostgreSQL", function () {
    this.timeout(60_000);
    const schema = freshName("gl_agenda_");
    const table = `${schema}.agenda_jobs`;
    // Polling every 30 s: a job picked up within a second arrived through LISTEN/NOTIFY.
    type Tuning = { lockLifetimeMs?: number; staleTickMs?: number; processEvery?: number };
    const layer = (tuning: Tuning = {}) =>
      AgendaRunQueueLive({ backend: "postgres", url, schema, processEvery: "30 seconds", ...tuning });
    const opened: Built[] = [];
    const open = async (tuning?: Tuning) => {
      const built = await build(layer(tuning));
      opened.push(built);
      return built;
    };
    after(async () => {
      for (const built of opened) await built.close().catch(() => undefined);
      await dropSchema(url, schema);
    });

    it("creates its schema once when many processes start at the same time", async () => {
      const starts = await Promise.all([0, 1, 2, 3].map(() => open()));
      expect(starts).to.have.length(4);
      const [row] = await sql<{ n: string }>(url, `select count(*) as n from ${table}`);
      expect(row?.n).to.equal("0");
    });

    it("hands a job enqueued by a process that does not consume to a worker within a second, once", async () => {
      const producer = await open();
      const worker = await open();
      const seen: Array<{ job: RunJob; redelivered: boolean }> = [];
      const stop = await worker.scoped(
        worker.queue.consume(2, (job, redelivered) => Effect.sync(() => void seen.push({ job, redelivered }))),
      );
      const job = runJob();
      const started = Date.now();
      await Effect.runPromise(producer.queue.enqueue(job));
      await until("the job to arrive", () => seen.length === 1, 1_000);
      expect(Date.now() - started).to.be.below(1_000);
      await sleep(300);
      await stop();
      expect(seen).to.deep.equal([{ job, redelivered: false }]);
      // Finished jobs are removed, so the table does not grow with every run.
      await until("the finished job to be removed", async () => {
        const rows = await sql(url, `select id from ${table} where data->>'runId' = $1`, [job.runId]);
        return rows.length === 0;
      });
    });

    it("works through a backlog larger than its concurrency without waiting for the next scan", async () => {
      const producer = await open();
      const jobs = Array.from({ length: 6 }, runJob);
      for (const job of jobs) await Effect.runPromise(producer.queue.enqueue(job));
      // Polling every 30 s: the first scan locks 2 jobs; the other 4 must follow as slots free up.
      const worker = await open();
      const handled: string[] = [];
      const stop = await worker.scoped(
        worker.queue.consume(2, (job) =>
          Effect.promise(async () => {
            await sleep(50);
            handled.push(job.runId);
          }),
        ),
      );
      await until("the whole backlog to be handled", () => handled.length === jobs.length, 5_000);
      await stop();
      expect([...handled].sort()).to.deep.equal(jobs.map((j) => j.runId).sort());
    });

    it("delivers a research job with its kind, and a deterministic job without one", async () => {
      const producer = await open();
      const worker = await open();
      const seen: RunJob[] = [];
      const stop = await worker.scoped(worker.queue.consume(2, (job) => Effect.sync(() => void seen.push(job))));
      const research: RunJob = { ...runJob(), kind: "research" };
      const plain = runJob();
      await Effect.runPromise(producer.queue.enqueue(research));
      await Effect.runPromise(producer.queue.enqueue(plain));
      await until("both jobs to arrive", () => seen.length === 2, 5_000);
      await stop();
      expect(seen.find((j) => j.runId === research.runId)).to.deep.equal(research);
      expect(seen.find((j) => j.runId === plain.runId)).to.deep.equal(plain);
    });

    it("drops a job whose data does not decode as a run job (an id that is not a UUID), and runs the next", async () => {
      const producer = await open();
      const worker = await open();
      const seen: RunJob[] = [];
      const stop = await worker.scoped(worker.queue.consume(2, (job) => Effect.sync(() => void seen.push(job))));
      const malformed = { ...runJob(), runId: "run-17" as RunId };
      const good = runJob();
      await Effect.runPromise(producer.queue.enqueue(malformed));
      await Effect.runPromise(producer.queue.enqueue(good));
      await until("the good job to arrive", () => seen.length === 1, 5_000);
      await until("the malformed job to be removed", async () => {
        const rows = await sql(url, `select id from ${table} where data->>'runId' = $1`, [malformed.runId]);
        return rows.length === 0;
      });
      await stop();
      expect(seen).to.deep.equal([good]);
    });

    it("serves owners in turn: one owner's 20 waiting runs do not hold back another owner's run", () =>
      expectOwnersServedInTurn((processEvery) => open({ processEvery })));

    it("serves owners round by round, first come first served within a round, whatever the rows' order", async () => {
      const producer = await open({ processEvery: 30_000 });
      const owners = ["a", "b", "c"].map(
        (c) => `${c.repeat(8)}-${c.repeat(4)}-4${c.repeat(3)}-8${c.repeat(3)}-${c.repeat(12)}`,
      );
      const jobs = owners.flatMap((ownerId) =>
        Array.from({ length: 3 }, (): RunJob => ({ ...runJob(), ownerId: ownerId as OwnerId })),
      );
      for (const job of jobs) await Effect.runPromise(producer.queue.enqueue(job));
      // Rewritten rows move to the end of the table, as Agenda's locks and touches move them: the
      // order rows come back in must not decide who goes first.
      // A lock and an unlock, as a worker that took the jobs and gave them back leaves them.
      await sql(url, `update ${table} set locked_at = now() where data->>'ownerId' = $1`, [owners[0]]);
      await sql(url, `update ${table} set locked_at = null where data->>'ownerId' = $1`, [owners[0]]);
      const worker = await open({ processEvery: 100 });
      const order: string[] = [];
      const stop = await worker.scoped(worker.queue.consume(1, (job) => Effect.sync(() => void order.push(job.runId))));
      await until("every job to be handled", () => order.length === jobs.length, 30_000);
      await stop();
      const byRound = [0, 1, 2].flatMap((round) => owners.map((_, o) => jobs[o * 3 + round]!.runId));
      expect(order).to.deep.equal(byRound);
    });

    it("redelivers a job whose worker died mid-run, flagged as a redelivery", async () => {
      const producer = await open();
      const job = runJob();
      await Effect.runPromise(producer.queue.enqueue(job));
      // What a worker killed after starting the job leaves behind: lastRunAt set, the lock stale.
      await sql(
        url,
        `update ${table} set last_run_at = now() - interval '1 minute', next_run_at = null,
           locked_at = now() - interval '10 minutes' where data->>'runId' = $1`,
        [job.runId],
      );
      const worker = await open({ lockLifetimeMs: 2_000 });
      const seen: Array<{ job: RunJob; redelivered: boolean }> = [];
      const stop = await worker.scoped(
        worker.queue.consume(1, (j, redelivered) => Effect.sync(() => void seen.push({ job: j, redelivered }))),
      );
      // No notification announces a stale lock: the first scan on start finds it.
      await until("the stale job to be taken over", () => seen.some((s) => s.job.runId === job.runId), 10_000);
      await stop();
      expect(seen.filter((s) => s.job.runId === job.runId)).to.deep.equal([{ job, redelivered: true }]);
    });

    it("announces a new job on its channel, and publishes no job state events (start, success, complete)", async () => {
      const channel = `gleaner_agenda_${(await sha256HexOf(`${schema}.agenda_jobs`)).slice(0, 16)}`;
      const listener = new pg.Client({ connectionString: url });
      await listener.connect();
      const heard: string[] = [];
      listener.on("notification", (notification) => heard.push(notification.channel));
      await listener.query(`LISTEN "${channel}"`);
      await listener.query(`LISTEN "${channel}:state"`);
      try {
        const producer = await open();
        const worker = await open();
        const seen: RunJob[] = [];
        const stop = await worker.scoped(worker.queue.consume(1, (j) => Effect.sync(() => void seen.push(j))));
        const job = runJob();
        await Effect.runPromise(producer.queue.enqueue(job));
        await until("the job to be handled", () => seen.length === 1, 2_000);
        await until("the finished job to be removed", async () => {
          const rows = await sql(url, `select id from ${table} where data->>'runId' = $1`, [job.runId]);
          return rows.length === 0;
        });
        await sleep(200);
        await stop();
      } finally {
        await listener.end();
      }
      expect(heard).to.deep.equal([channel]);
    });

    it("finishes a job by deleting it without saving it first: one whose delete fails stays locked, to be taken over", async () => {
      const producer = await open();
      const job = runJob();
      // This job's delete fails, as when the connection drops at that moment.
      await sql(
        url,
        `create function "${schema}".refuse_delete() returns trigger language plpgsql as $$
         begin if old.data->>'runId' = '${job.runId}' then raise exception 'delete refused'; end if; return old; end $$`,
      );
      await sql(
        url,
        `create trigger refuse_delete before delete on ${table} for each row execute function "${schema}".refuse_delete()`,
      );
      const worker = await open();
      const seen: RunJob[] = [];
      const stop = await worker.scoped(worker.queue.consume(1, (j) => Effect.sync(() => void seen.push(j))));
      await Effect.runPromise(producer.queue.enqueue(job));
      await until("the job to be handled", () => seen.length === 1, 2_000);
      await sleep(500);
      await stop();
      await sql(url, `drop trigger refuse_delete on ${table}`);
      // Saved before its delete it would be unlocked with no next run: never delivered again, never removed.
      // Left as a worker that died mid-run leaves it, it is taken over once its lock expires (see below).
      const [row] = await sql<{ locked_at: Date | null; last_run_at: Date | null; last_finished_at: Date | null }>(
        url,
        `select locked_at, last_run_at, last_finished_at from ${table} where data->>'runId' = $1`,
        [job.runId],
      );
      expect(row?.locked_at).to.be.instanceOf(Date);
      expect(row?.last_run_at).to.be.instanceOf(Date);
      expect(row?.last_finished_at).to.equal(null);
      await sql(url, `delete from ${table} where data->>'runId' = $1`, [job.runId]);
    });

    it("keeps a run longer than the lock lifetime locked, so no second worker gets it", async () => {
      const lockLifetimeMs = 1_000;
      const a = await open({ lockLifetimeMs });
      const b = await open({ lockLifetimeMs });
      const deliveries: string[] = [];
      const slow = (name: string) => (job: RunJob) =>
        Effect.promise(async () => {
          deliveries.push(`${name}:${job.runId}`);
          await sleep(3_500);
        });
      const stopA = await a.scoped(a.queue.consume(1, slow("a")));
      const job = runJob();
      await Effect.runPromise(a.queue.enqueue(job));
      await until("worker a to start it", () => deliveries.length === 1, 2_000);
      const stopB = await b.scoped(b.queue.consume(1, slow("b")));
      await sleep(4_000);
      await Promise.all([stopA(), stopB()]);
      expect(deliveries).to.deep.equal([`a:${job.runId}`]);
    });

    it("on stop waits for the run in flight and leaves the waiting jobs to another worker", async () => {
      const producer = await open();
      const first = await open();
      const handled: string[] = [];
      let finishedInFlight = false;
      const stopFirst = await first.scoped(
        first.queue.consume(1, (job) =>
          Effect.promise(async () => {
            handled.push(job.runId);
            await sleep(800);
            finishedInFlight = true;
          }),
        ),
      );
      const jobs = [runJob(), runJob(), runJob()];
      for (const job of jobs) await Effect.runPromise(producer.queue.enqueue(job));
      await until("the first worker to start one", () => handled.length === 1, 2_000);
      await first.close();
      await stopFirst().catch(() => undefined);
      expect(finishedInFlight, "closing waited for the run in flight").to.equal(true);
      expect(handled).to.have.length(1);

      const second = await open();
      const stopSecond = await second.scoped(
        second.queue.consume(2, (job) => Effect.sync(() => void handled.push(job.runId))),
      );
      await until("the other jobs to reach the second worker", () => handled.length === 3, 10_000);
      await stopSecond();
      expect([...handled].sort()).to.deep.equal(jobs.map((j) => j.runId).sort());
    });

    describe("routines", () => {
      const routine = () => ({
        datasetId: globalThis.crypto.randomUUID() as DatasetId,
        ownerId: globalThis.crypto.randomUUID() as OwnerId,
        cron: "*/5 * * * *",
      });
      const routineRows = (datasetId: string) =>
        sql<{ next_run_at: Date; repeat_interval: string; repeat_timezone: string }>(
          url,
          `select next_run_at, repeat_interval, repeat_timezone from ${table} where name = $1 and data->>'datasetId' = $2`,
          [routineJob, datasetId],
        );

      it("keeps one routine per dataset, due at the next occurrence in UTC, and removes it", async () => {
        const a = await open();
        const b = await open();
        const r = routine();
        // Two processes setting the same routine at once still leave one job.
        await Promise.all([Effect.runPromise(a.queue.setRoutine(r)), Effect.runPromise(b.queue.setRoutine(r))]);
        await Effect.runPromise(a.queue.setRoutine({ ...r, cron: "0 3 * * *" }));
        const rows = await routineRows(r.datasetId);
        expect(rows).to.have.length(1);
        expect(rows[0]?.repeat_interval).to.equal("0 3 * * *");
        expect(rows[0]?.repeat_timezone).to.equal("UTC");
        const due = rows[0]?.next_run_at as Date;
        expect(due.getUTCHours()).to.equal(3);
        expect(due.getUTCMinutes()).to.equal(0);
        expect(due.getTime()).to.be.above(Date.now());
        expect(due.getTime() - Date.now()).to.be.at.most(24 * 3600_000);
        await Effect.runPromise(a.queue.removeRoutine(r.datasetId));
        await Effect.runPromise(a.queue.removeRoutine(r.datasetId));
        expect(await routineRows(r.datasetId)).to.have.length(0);
      });

      it("fires a due occurrence with its due time, then schedules the next one from now", async () => {
        const api = await open();
        const r = routine();
        await Effect.runPromise(api.queue.setRoutine(r));
        // Make the occurrence due now, as if the clock had reached it.
        const [due] = await sql<{ next_run_at: Date }>(
          url,
          `update ${table} set next_run_at = date_trunc('second', now()) where data->>'datasetId' = $1
             returning next_run_at`,
          [r.datasetId],
        );
        const worker = await open();
        const ticks: RoutineTick[] = [];
        const stop = await worker.scoped(
          worker.queue.consumeRoutines((tick) => Effect.sync(() => void ticks.push(tick))),
        );
        await until("the tick", () => ticks.length === 1, 5_000);
        await sleep(300);
        await stop();
        expect(ticks).to.deep.equal([{ ...r, firedAt: due?.next_run_at.toISOString() }]);
        const [next] = await routineRows(r.datasetId);
        expect(next?.next_run_at.getTime()).to.be.above(Date.now());
        expect((next?.next_run_at.getUTCMinutes() ?? 1) % 5).to.equal(0);
      });

      it("drops an occurrence missed during downtime instead of replaying it", async () => {
        const worker = await open({ staleTickMs: 5_000 });
        const r = routine();
        await Effect.runPromise(worker.queue.setRoutine(r));
        await sql(url, `update ${table} set next_run_at = now() - interval '3 hours' where data->>'datasetId' = $1`, [
          r.datasetId,
        ]);
        const ticks: RoutineTick[] = [];
        const stop = await worker.scoped(
          worker.queue.consumeRoutines((tick) => Effect.sync(() => void ticks.push(tick))),
        );
        await until(
          "the missed occurrence to be passed over",
          async () => ((await routineRows(r.datasetId))[0]?.next_run_at.getTime() ?? 0) > Date.now(),
          35_000,
        );
        await sleep(500);
        await stop();
        expect(ticks).to.deep.equal([]);
      });
    });

    it("fails to start with QueueUnavailable when the database cannot be reached", async () => {
      const unreachable = AgendaRunQueueLive({
        backend: "postgres",
        url: "postgres://postgres@127.0.0.1:1/none",
        schema,
      });
      const exit = await Effect.runPromiseExit(Effect.scoped(Layer.build(unreachable)));
      expect(Exit.isFailure(exit)).to.equal(true);
      if (Exit.isFailure(exit)) expect(Cause.squash(exit.cause)).to.have.property("_tag", "QueueUnavailable");
    });
  });
});
