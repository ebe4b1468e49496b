import type { DatasetId, WebhookDeliveryJob } from "@gleaner/core";
import * as Clock from "effect/Clock";
import * as Duration from "effect/Duration";
import * as Effect from "effect/Effect";
import * as Queue from "effect/Queue";
import type * as Scope from "effect/Scope";

// Delays are slept on the wall clock: a retry is due in real time, whatever clock the runs use.
const wallClock = Clock.make();

/**
 * Webhook delivery jobs in process: a dataset is handed to at most one consumer at a time (its
 * messages must go out in order); a job for a dataset in hand is remembered and run after it.
 * Delayed jobs sleep in fibers of the layer's scope. Nothing survives the process; the outbox does
 * (in a durable store), and the worker's poll finds it.
 */
export const makeWebhookJobs = (layerScope: Scope.Scope) =>
  Effect.gen(function* () {
    const ready = yield* Effect.acquireRelease(Queue.unbounded<DatasetId>(), Queue.shutdown);
    const inHand = new Set<string>();
    const again = new Set<string>();

    const enqueue = (job: WebhookDeliveryJob) =>
      Effect.gen(function* () {
        const delayMs = job.dueAt ? Date.parse(job.dueAt) - Date.now() : 0;
        if (delayMs <= 0) return void (yield* Queue.offer(ready, job.datasetId));
        const later = Effect.sleep(Duration.millis(delayMs)).pipe(
          Effect.withClock(wallClock),
          Effect.zipRight(Queue.offer(ready, job.datasetId)),
        );
        yield* Effect.forkIn(later, layerScope);
      });

    const consume = (concurrency: number, handler: (job: WebhookDeliveryJob) => Effect.Effect<void>) =>
      Effect.gen(function* () {
        const loop = Queue.take(ready).pipe(
          Effect.flatMap((datasetId) => {
            if (inHand.has(datasetId)) return Effect.sync(() => void again.add(datasetId));
            inHand.add(datasetId);
            return Effect.uninterruptible(handler({ datasetId })).pipe(
              Effect.ensuring(
                Effect.suspend(() => {
                  inHand.delete(datasetId);
                  return again.delete(datasetId) ? Queue.offer(ready, datasetId) : Effect.void;
                }),
              ),
            );
          }),
          Effect.forever,
        );
        for (let i = 0; i < concurrency; i++) yield* Effect.forkScoped(loop);
      });

    return { enqueue, consume };
  });
