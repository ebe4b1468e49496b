import * as Clock from "effect/Clock";
import * as Duration from "effect/Duration";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import { Storage } from "../ports/storage.js";
import { RetentionPolicy, retentionCutoff } from "../rules/retention.js";

/** Runs whose record goes per statement: a backlog is pruned in short transactions. */
const pruneBatch = 200;

/**
 * Removes the records of runs past retention (RetentionPolicy, by Effect's Clock), a batch at a time.
 * Answers how many runs' records went.
 */
export const pruneRunRecords = Effect.gen(function* () {
  const storage = yield* Storage;
  const { days } = yield* RetentionPolicy;
  const finishedBefore = retentionCutoff(yield* Clock.currentTimeMillis, days);
  let pruned = 0;
  while (true) {
    const removed = yield* storage.pruneRunRecords(finishedBefore, pruneBatch);
    pruned += removed;
    if (removed < pruneBatch) return pruned;
  }
});

const wallClock = Clock.make();

/**
 * The retention prune of a `serve` or `worker` process: at start and every `everyMs` (default 1 h).
 * Every process runs it; two at once remove each record once, and a failed prune is retried by the
 * next one.
 */
export const RetentionLive = (everyMs = 3_600_000): Layer.Layer<never, never, Storage> =>
  Layer.scopedDiscard(
    Effect.gen(function* () {
      const context = yield* Effect.context<Storage>();
      const prune = pruneRunRecords.pipe(
        Effect.tap((pruned) =>
          pruned > 0
            ? Effect.logInfo("run records past retention removed").pipe(Effect.annotateLogs({ pruned }))
            : Effect.void,
        ),
        Effect.provide(context),
        Effect.catchAllCause((cause) => Effect.logWarning("retention prune failed; the next one retries", cause)),
        Effect.zipRight(Effect.sleep(Duration.millis(everyMs)).pipe(Effect.withClock(wallClock))),
        Effect.forever,
      );
      yield* Effect.forkScoped(prune);
    }),
  );
