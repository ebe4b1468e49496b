import { QueueUnavailable, RunQueue, type RunJob } from "@gleaner/core";
import { Effect, Layer, Queue } from "effect";

export interface MemoryRunQueueOptions {
  /** Jobs waiting at most; beyond it enqueue answers QueueUnavailable (HTTP 503). */
  readonly capacity?: number;
}

/**
 * Run jobs in process. Nothing survives the process, which is why the memory profile is for
 * development and embedding; @gleaner/agenda is the durable queue.
 */
export const MemoryRunQueueLive = (options: MemoryRunQueueOptions = {}): Layer.Layer<RunQueue> =>
  Layer.scoped(
    RunQueue,
    Effect.gen(function* () {
      const jobs = yield* Effect.acquireRelease(Queue.dropping<RunJob>(options.capacity ?? 10_000), Queue.shutdown);
      return {
        enqueue: (job) =>
          Queue.offer(jobs, job).pipe(
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
            const loop = Queue.take(jobs).pipe(
              Effect.flatMap((job) => Effect.uninterruptible(handler(job, false))),
              Effect.forever,
            );
            for (let i = 0; i < concurrency; i++) yield* Effect.forkScoped(loop);
          }),
      };
    }),
  );
