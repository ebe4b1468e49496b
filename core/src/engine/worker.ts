import * as Clock from "effect/Clock";
import * as Duration from "effect/Duration";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as Fiber from "effect/Fiber";
import * as Layer from "effect/Layer";
import * as Option from "effect/Option";
import { isStorageUnavailable } from "../errors.js";
import type { DocumentParser } from "../ports/document-parser.js";
import type { Fetcher } from "../ports/fetcher.js";
import { RunQueue, type RunJob } from "../ports/run-queue.js";
import { Storage } from "../ports/storage.js";
import { isoAt } from "../time.js";
import { emptyTrace } from "../usecases/runs.js";
import { executeRun } from "./execute.js";
import { announceRunWebhooks } from "./webhook-worker.js";

export interface RunWorkerOptions {
  /**
   * The most one delivery of a run may take, read to acceptance. Past it the run ends `failed`
   * with a reason saying so, and the worker slot is free again: a site that trickles its body
   * cannot hold a slot for minutes. Default 5 minutes.
   */
  readonly runDeadlineMs?: number;
}

export const defaultRunDeadlineMs = 5 * 60 * 1000;

const wallClock = Clock.make();

/** Finishes a run its deadline interrupted (a no-op when it got to finish meanwhile). */
const finishOverdue = (job: RunJob, deadlineMs: number) =>
  Effect.gen(function* () {
    const storage = yield* Storage;
    const now = isoAt(yield* Clock.currentTimeMillis);
    // The interrupted delivery left the run `running`: reclaim it to get its record, then finish it.
    const claimed = yield* storage.claimRun(job.runId, now, true);
    if (Option.isNone(claimed)) return;
    const { run } = claimed.value;
    const seconds = Math.round(deadlineMs / 1000);
    yield* storage.finishRun(
      {
        ...run,
        status: "failed",
        error: `The run exceeded its ${seconds} s deadline and was stopped; nothing was written or charged.`,
        completedAt: now,
      },
      { trace: emptyTrace(run), artifacts: [], facts: [], failures: [] },
    );
  });

/**
 * One delivery under the deadline. The run executes in a fiber of its own that only the deadline
 * interrupts: a queue that holds deliveries uninterruptible while it shuts down still waits for
 * them, and the deadline still ends them.
 */
export const executeWithDeadline = Effect.fn("RunWorker.executeWithDeadline")(function* (
  job: RunJob,
  redelivered: boolean,
  deadlineMs: number,
) {
  const run = yield* Effect.forkDaemon(Effect.interruptible(executeRun(job, redelivered)));
  // Wall time even on a virtual clock: tests that move a TestClock by hours must not expire runs.
  const sleep = Effect.sleep(Duration.millis(deadlineMs)).pipe(Effect.withClock(wallClock));
  const timer = yield* Effect.forkDaemon(Effect.interruptible(sleep.pipe(Effect.zipRight(Fiber.interrupt(run)))));
  const exit = yield* Fiber.await(run);
  yield* Fiber.interrupt(timer);
  if (Exit.isInterrupted(exit)) {
    yield* Effect.logWarning(`run ${job.runId} exceeded its ${deadlineMs} ms deadline; finishing it as failed`);
    yield* finishOverdue(job, deadlineMs);
  } else if (Exit.isFailure(exit)) {
    return yield* Effect.failCause(exit.cause);
  }
});

/** Waits between deliveries while the database is away: 1 s doubling to 30 s, for up to 15 min. */
const storageRetry = { firstMs: 1_000, maxMs: 30_000, giveUpAfterMs: 15 * 60_000 } as const;

/**
 * One delivery, delivered again while the database is unreachable (a dropped connection, a
 * restart): the run resumes when it returns instead of being stranded `running` or `queued`. Each
 * retry counts as a redelivery so the run this worker already claimed is taken up again. The
 * waits are on the wall clock, like the deadline.
 */
export const deliverRun = (job: RunJob, redelivered: boolean, deadlineMs: number) => {
  const attempt = (again: boolean, waitedMs: number, delayMs: number): Effect.Effect<void, unknown, RunEngine> =>
    executeWithDeadline(job, again, deadlineMs).pipe(
      Effect.catchIf(
        (error) => isStorageUnavailable(error) && waitedMs < storageRetry.giveUpAfterMs,
        (error) =>
          Effect.logWarning(
            `run ${job.runId}: the database is unavailable (${(error as Error).message}); retrying in ${delayMs} ms`,
          ).pipe(
            Effect.zipRight(Effect.sleep(Duration.millis(delayMs)).pipe(Effect.withClock(wallClock))),
            Effect.zipRight(
              Effect.suspend(() => attempt(true, waitedMs + delayMs, Math.min(storageRetry.maxMs, delayMs * 2))),
            ),
          ),
      ),
    );
  return attempt(redelivered, 0, storageRetry.firstMs);
};

/** The services a run needs from its host: storage, a fetcher and a document parser. */
export type RunEngine = Storage | Fetcher | DocumentParser;

/**
 * The worker: consumes run jobs with bounded concurrency for as long as the layer lives. A host
 * includes it in `serve` (API + worker in one process) and `worker` (queue consumer only).
 */
export const RunWorkerLive = (
  concurrency: number,
  options: RunWorkerOptions = {},
): Layer.Layer<never, never, RunQueue | Storage | Fetcher | DocumentParser> =>
  Layer.scopedDiscard(
    Effect.gen(function* () {
      const queue = yield* RunQueue;
      const context = yield* Effect.context<Storage | Fetcher | DocumentParser>();
      const deadlineMs = options.runDeadlineMs ?? defaultRunDeadlineMs;
      yield* queue.consume(concurrency, (job, redelivered) =>
        deliverRun(job, redelivered, deadlineMs).pipe(
          Effect.provide(context),
          Effect.catchAllCause(Effect.logError),
          // The run's webhook messages were committed with its outcome; wake their delivery now.
          Effect.zipRight(
            announceRunWebhooks(job.datasetId).pipe(Effect.provide(context), Effect.provideService(RunQueue, queue)),
          ),
        ),
      );
    }),
  );
