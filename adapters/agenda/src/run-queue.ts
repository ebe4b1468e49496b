import { hostname } from "node:os";
import {
  QueueUnavailable,
  Routine,
  type RoutineTick,
  RunJob,
  RunQueue,
  type RunQueueService,
  type StorageFailure,
  storedDecoder,
  WebhookDeliveryJob,
} from "@gleaner/core";
import { Agenda, type AgendaBackend, type Job } from "agenda";
import * as Duration from "effect/Duration";
import * as Effect from "effect/Effect";
import * as Either from "effect/Either";
import * as Layer from "effect/Layer";
import * as Runtime from "effect/Runtime";
import { type AgendaQueueConfig, defaults } from "./config.js";
import { recordDeliveries } from "./deliveries.js";
import { skipSaveBeforeRemove } from "./final-save.js";
import { InFlight } from "./in-flight.js";
import { routineJob, runJob, webhookJob } from "./job-names.js";
import { prepareMongo } from "./mongo.js";
import { preparePostgres } from "./postgres.js";
import { refillWhenJobsFinish } from "./refill.js";
import { withoutStateNotifications } from "./state-notifications.js";

// Job data is decoded with core's schemas, not cast: a job that does not decode (written by
// another version, or by hand) is dropped with a warning naming it, never run with wrong ids.
const decodeRunJob = storedDecoder(RunJob, "Agenda", "run job");
const decodeRoutine = storedDecoder(Routine, "Agenda", "routine job");
const decodeWebhookJob = storedDecoder(WebhookDeliveryJob, "Agenda", "webhook delivery job");
const dropJob = (runtime: Runtime.Runtime<never>, failure: StorageFailure) =>
  Runtime.runPromise(runtime)(Effect.logWarning(`${failure.message} The job is dropped.`));

const unavailable = (cause: unknown) =>
  new QueueUnavailable({
    message: `The run queue cannot take the run now (${cause instanceof Error ? cause.message : String(cause)}); try again shortly.`,
  });

/** Hands Agenda a job: its failure, or no answer within 10 s, is QueueUnavailable (503). */
const saved = (save: () => Promise<unknown>): Effect.Effect<void, QueueUnavailable> =>
  Effect.tryPromise({ try: save, catch: unavailable }).pipe(
    Effect.timeoutFail({ duration: Duration.seconds(10), onTimeout: () => unavailable("enqueue timed out") }),
    Effect.asVoid,
  );

/**
 * When an owned run job is due (see enqueueFairly): its owner's round (how many of the owner's jobs
 * wait ahead of it) picks a 60-year span starting in year 100, and its enqueue time since 2026 places
 * it within the span, so Agenda's order (nextRunAt first) is round by round, first come first served
 * within a round, with no tie left to the database's whim. Always long past, so always due; spans
 * stay apart until 2086.
 */
const yearMs = 365.25 * 86_400_000;
const roundsStart = Date.UTC(100, 0, 1);
const roundSpanMs = 60 * yearMs;
const lastRound = 29;
const arrivalsEpoch = Date.UTC(2026, 0, 1);
const fairDueAt = (waiting: number, now: number): Date =>
  new Date(roundsStart + Math.min(waiting, lastRound) * roundSpanMs + Math.max(0, now - arrivalsEpoch));

const isUniqueViolation = (error: unknown) => (error as { code?: string } | null)?.code === "23505";

interface Prepared {
  readonly backend: AgendaBackend;
  readonly close: () => Promise<void>;
  /** Run jobs of the owner not yet taken by a worker (fair scheduling); absent: FIFO. */
  readonly waitingRuns?: (ownerId: string) => Promise<number>;
}

const prepare = (config: AgendaQueueConfig): Promise<Prepared> =>
  config.backend === "postgres" ? preparePostgres(config) : prepareMongo(config);

/**
 * The durable RunQueue on Agenda 6. Run jobs are one-shot Agenda jobs holding only the run and
 * dataset ids; a routine is one recurring Agenda job per dataset (cron, UTC). Every process that
 * builds the layer calls agenda.start(), so even an API-only process publishes NOTIFY on enqueue;
 * only processes that consume define handlers, so only they lock jobs.
 *
 * Delivery is at least once. A job whose worker died is taken over once its lock is older than
 * lockLifetimeMs; jobs in flight are touched every third of that, so a long run keeps its lock.
 * Releasing the layer stops taking jobs, unlocks the ones locked but not started, waits for the
 * ones in flight, then closes the connections: nothing is stranded.
 */
export const AgendaRunQueueLive = (config: AgendaQueueConfig): Layer.Layer<RunQueue, QueueUnavailable> =>
  Layer.scoped(
    RunQueue,
    Effect.gen(function* () {
      const lockLifetimeMs = config.lockLifetimeMs ?? defaults.lockLifetimeMs;
      const staleTickMs = config.staleTickMs ?? defaults.staleTickMs;
      const prepared = yield* Effect.acquireRelease(
        Effect.tryPromise({ try: () => prepare(config), catch: unavailable }),
        (p) => Effect.promise(() => p.close().catch(() => undefined)),
      );
      const { backend, take } = recordDeliveries(withoutStateNotifications(prepared.backend));
      // Connect here, not inside Agenda's constructor: there a failed connect is an unhandled
      // rejection and agenda.ready never settles. Agenda's own connect() then reuses this one.
      yield* Effect.tryPromise({ try: () => backend.connect(), catch: unavailable }).pipe(
        Effect.timeoutFail({ duration: Duration.seconds(30), onTimeout: () => unavailable("connect timed out") }),
      );
      const agenda = new Agenda({
        backend,
        name: config.instanceName ?? `gleaner-${hostname()}-${process.pid}`,
        processEvery: config.processEvery ?? defaults.processEvery,
        defaultLockLifetime: lockLifetimeMs,
        maxConcurrency: 256,
        ...(config.lockLimit ? { lockLimit: config.lockLimit } : {}),
        removeOnComplete: true,
      });
      skipSaveBeforeRemove(agenda);
      // Logged through the layer's own runtime, so the host's logger (pino, its level) hears it.
      const runtime = yield* Effect.runtime<never>();
      const warn = (error: Error) => Runtime.runFork(runtime)(Effect.logWarning(`agenda: ${error.message}`));
      agenda.on("error", warn);
      // The LISTEN connection reports a lost server as an "error" event (it then reconnects);
      // unheard, that event would end the process.
      const channel = backend.notificationChannel as unknown as {
        on?: (e: "error", f: (error: Error) => void) => void;
      };
      channel?.on?.("error", warn);
      const inFlight = new InFlight(agenda);
      let stopped: Promise<void> | null = null;
      // Stops taking jobs and unlocks those locked but not started (Agenda's stop does both);
      // the pool stays open so handlers in flight can still finish and record their jobs.
      const stopTaking = () => (stopped ??= agenda.stop(false).catch(() => undefined));
      const stopAndSettle = Effect.promise(async () => {
        await stopTaking();
        await inFlight.settled();
      });

      yield* Effect.acquireRelease(
        Effect.tryPromise({ try: () => agenda.start(), catch: unavailable }),
        () => stopAndSettle,
      );
      refillWhenJobsFinish(agenda);

      // Agenda started with no definitions never scans, and until its first scan it ignores
      // notifications (they look due after its next scan); scan right after each define so
      // due jobs are taken now and NOTIFY works from then on. Agenda is pinned to 6.2.6.
      const scanNow = () => {
        const processor = (agenda as unknown as { jobProcessor?: { process?: () => Promise<void> } }).jobProcessor;
        processor?.process?.().catch(() => undefined);
      };

      // Runs a handler to completion while keeping the job's lock fresh.
      const keepLocked = async (job: Job<unknown>, work: () => Promise<void>) => {
        const done = inFlight.begin(job);
        const toucher = setInterval(
          () => {
            job.touch().catch(() => undefined);
          },
          Math.max(100, Math.floor(lockLifetimeMs / 3)),
        );
        try {
          await work();
        } finally {
          clearInterval(toucher);
          done();
        }
      };

      /**
       * Defines a consumer of one job name: the job's data is decoded first (a job that does not
       * decode is dropped with a warning), then handled uninterruptibly with its lock kept fresh.
       */
      const defineDecoded = <A>(
        runtime: Runtime.Runtime<never>,
        name: string,
        decode: (data: unknown, id: string) => Either.Either<A, StorageFailure>,
        concurrency: number,
        handle: (data: A, taken: ReturnType<typeof take>) => Effect.Effect<void>,
      ) =>
        agenda.define(
          name,
          async (job: Job<unknown>) => {
            const taken = take(job.attrs._id);
            const decoded = decode(job.attrs.data, String(job.attrs._id));
            if (Either.isLeft(decoded)) return dropJob(runtime, decoded.left);
            const work = handle(decoded.right, taken);
            await keepLocked(job, () => Runtime.runPromise(runtime)(Effect.uninterruptible(work)));
          },
          { concurrency, lockLimit: concurrency, lockLifetime: lockLifetimeMs },
        );

      // Fair across owners: a job is due in its owner's round (fairDueAt), so owners are served in
      // turn: another owner's first job ranks with a busy owner's first, ahead of its second, and
      // jobs of one round go first come first served. (A shared due time with the round as priority
      // left ties to the database: the owner who posted first was served last in each round.) A job
      // without an owner is in the first round.
      const enqueueFairly = async (job: RunJob) => {
        const data = { runId: job.runId, datasetId: job.datasetId, ...(job.kind ? { kind: job.kind } : {}) };
        if (!job.ownerId) {
          const unowned = agenda.create(runJob, data);
          unowned.schedule(fairDueAt(0, Date.now()));
          return void (await unowned.save());
        }
        const waiting = (await prepared.waitingRuns?.(job.ownerId).catch(() => 0)) ?? 0;
        const created = agenda.create(runJob, { ...data, ownerId: job.ownerId });
        created.schedule(fairDueAt(waiting, Date.now()));
        await created.save();
      };

      const setRoutineOnce = async (routine: Routine) => {
        const job = agenda.create(routineJob, { ...routine });
        job.repeatEvery(routine.cron, { timezone: "UTC", skipImmediate: true });
        job.unique({ "data.datasetId": routine.datasetId });
        await job.save();
      };

      const service: RunQueueService = {
        enqueue: (job) => saved(() => enqueueFairly(job)),

        consume: (concurrency, handler) =>
          Effect.gen(function* () {
            const runtime = yield* Effect.runtime<never>();
            // Unknown (not locked through getNextJobToRun): assume a redelivery, so a run left
            // `running` by a dead worker is reclaimed; the engine's guards make that safe.
            defineDecoded(runtime, runJob, decodeRunJob, concurrency, (data, taken) =>
              handler(data, taken?.startedBefore ?? true),
            );
            scanNow();
            yield* Effect.addFinalizer(() => stopAndSettle);
          }),

        // A wake-up per dataset and due time; the outbox (Storage) is the record and keeps the
        // order, so two such jobs for one dataset on two workers are harmless.
        enqueueWebhookDelivery: (job) =>
          saved(() =>
            agenda.schedule(job.dueAt ? new Date(job.dueAt) : new Date(), webhookJob, { datasetId: job.datasetId }),
          ),

        consumeWebhookDeliveries: (concurrency, handler) =>
          Effect.gen(function* () {
            const runtime = yield* Effect.runtime<never>();
            defineDecoded(runtime, webhookJob, decodeWebhookJob, concurrency, (data) =>
              handler({ datasetId: data.datasetId }),
            );
            scanNow();
            yield* Effect.addFinalizer(() => stopAndSettle);
          }),

        setRoutine: (routine) =>
          Effect.tryPromise({
            // Two processes may create the same dataset's routine at once; the unique index
            // (postgres) makes the loser fail, and its retry updates the winner's job.
            try: () =>
              setRoutineOnce(routine).catch((error) =>
                isUniqueViolation(error) ? setRoutineOnce(routine) : Promise.reject(error),
              ),
            catch: unavailable,
          }),

        removeRoutine: (datasetId) =>
          Effect.promise(() => agenda.cancel({ name: routineJob, data: { datasetId } }).catch(() => 0)).pipe(
            Effect.asVoid,
          ),

        consumeRoutines: (handler) =>
          Effect.gen(function* () {
            const runtime = yield* Effect.runtime<never>();
            agenda.define(
              routineJob,
              async (job: Job<unknown>) => {
                const dueAt = take(job.attrs._id)?.dueAt ?? null;
                const decoded = decodeRoutine(job.attrs.data, String(job.attrs._id));
                if (Either.isLeft(decoded)) return dropJob(runtime, decoded.left);
                const data = decoded.right;
                if (!dueAt) return;
                // Agenda already moved nextRunAt to the next occurrence after now; an occurrence
                // picked up long after it was due (downtime, a dead worker) is dropped, not replayed.
                if (Date.now() - dueAt.getTime() > staleTickMs) return;
                const tick: RoutineTick = { ...data, firedAt: dueAt.toISOString() };
                await keepLocked(job, () => Runtime.runPromise(runtime)(Effect.uninterruptible(handler(tick))));
              },
              { concurrency: defaults.routineConcurrency, lockLifetime: lockLifetimeMs },
            );
            scanNow();
            yield* Effect.addFinalizer(() => stopAndSettle);
          }),
      };
      return service;
    }),
  );
