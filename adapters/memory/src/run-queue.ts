import { nextOccurrence, QueueUnavailable, type Routine, type RoutineTick, RunQueue } from "@gleaner/core";
import * as Clock from "effect/Clock";
import * as Effect from "effect/Effect";
import * as Fiber from "effect/Fiber";
import * as Layer from "effect/Layer";
import * as Queue from "effect/Queue";
import type * as Scope from "effect/Scope";
import { FairJobs } from "./fair-jobs.js";
import { makeWebhookJobs } from "./webhook-jobs.js";

export interface MemoryRunQueueOptions {
  /** Jobs waiting at most; beyond it enqueue answers QueueUnavailable (HTTP 503). */
  readonly capacity?: number;
}

/**
 * Run jobs in process, served fairly across owners (fair-jobs.ts). Nothing survives the process, which is why the memory profile is for
 * development and embedding; @gleaner/agenda is the durable queue.
 */
export const MemoryRunQueueLive = (options: MemoryRunQueueOptions = {}): Layer.Layer<RunQueue> =>
  Layer.scoped(
    RunQueue,
    Effect.gen(function* () {
      const capacity = options.capacity ?? 10_000;
      // The jobs wait in owner turns (FairJobs); the Effect queue holds one ticket per waiting
      // job, so consumers block on it and shutting it down stops them.
      const waiting = new FairJobs();
      const tickets = yield* Effect.acquireRelease(Queue.unbounded<true>(), Queue.shutdown);
      const webhookJobs = yield* makeWebhookJobs(yield* Effect.scope);
      const routines = new Map<string, Routine>();
      const timers = new Map<string, Fiber.RuntimeFiber<void>>();
      let firing: { scope: Scope.Scope; handler: (tick: RoutineTick) => Effect.Effect<void> } | null = null;

      // One fiber per routine: sleep (on Effect's Clock, so TestClock drives it) until the next
      // occurrence after now, fire, repeat. Occurrences are always computed from now: no bursts.
      const timer = (routine: Routine, handler: (tick: RoutineTick) => Effect.Effect<void>) =>
        Effect.gen(function* () {
          const now = yield* Clock.currentTimeMillis;
          const due = nextOccurrence(routine.cron, now);
          yield* Effect.sleep(due - now);
          yield* handler({ ...routine, firedAt: new Date(due).toISOString() });
        }).pipe(Effect.forever);

      const start = (routine: Routine) =>
        Effect.gen(function* () {
          const running = timers.get(routine.datasetId);
          timers.delete(routine.datasetId);
          if (running) yield* Fiber.interrupt(running);
          if (!firing) return;
          const fiber = yield* Effect.forkIn(timer(routine, firing.handler), firing.scope);
          timers.set(routine.datasetId, fiber);
        });

      return {
        enqueue: (job) =>
          Effect.suspend(() => {
            if (waiting.size >= capacity) return Effect.succeed(false);
            return Queue.offer(tickets, true).pipe(
              Effect.tap((accepted) => {
                if (accepted) waiting.push(job);
              }),
            );
          }).pipe(
            Effect.catchAllCause(() => Effect.succeed(false)),
            Effect.flatMap((accepted) =>
              accepted
                ? Effect.void
                : Effect.fail(
                    new QueueUnavailable({ message: "The run queue is full or stopped; try again shortly." }),
                  ),
            ),
          ),
        consume: (concurrency, handler) =>
          Effect.gen(function* () {
            // Each loop takes a job and handles it uninterruptibly, so closing the scope waits for
            // runs in flight and interrupts only loops that are waiting for work.
            const loop = Queue.take(tickets).pipe(
              Effect.flatMap(() => {
                const job = waiting.take();
                return job ? Effect.uninterruptible(handler(job, false)) : Effect.void;
              }),
              Effect.forever,
            );
            for (let i = 0; i < concurrency; i++) yield* Effect.forkScoped(loop);
          }),
        enqueueWebhookDelivery: (job) => webhookJobs.enqueue(job).pipe(Effect.catchAllCause(() => Effect.void)),
        consumeWebhookDeliveries: webhookJobs.consume,
        setRoutine: (routine) =>
          Effect.gen(function* () {
            const current = routines.get(routine.datasetId);
            if (current?.cron === routine.cron && timers.has(routine.datasetId)) return;
            routines.set(routine.datasetId, routine);
            yield* start(routine);
          }),
        removeRoutine: (datasetId) =>
          Effect.gen(function* () {
            routines.delete(datasetId);
            const running = timers.get(datasetId);
            timers.delete(datasetId);
            if (running) yield* Fiber.interrupt(running);
          }),
        consumeRoutines: (handler) =>
          Effect.gen(function* () {
            firing = { scope: yield* Effect.scope, handler };
            for (const routine of routines.values()) yield* start(routine);
            yield* Effect.addFinalizer(() =>
              Effect.sync(() => {
                firing = null;
              }),
            );
          }),
      };
    }),
  );
