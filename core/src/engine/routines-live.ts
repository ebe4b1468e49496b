import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import type { Credits } from "../ports/credits.js";
import { RunQueue } from "../ports/run-queue.js";
import { Storage } from "../ports/storage.js";
import { onRoutineTick } from "../usecases/routines.js";

/**
 * Keeps schedules running for as long as the layer lives: on start it re-applies every active
 * routine from storage (a restarted host resumes without replaying missed ticks), then handles
 * ticks. Included wherever the worker runs.
 */
export const RoutinesLive: Layer.Layer<never, never, RunQueue | Storage | Credits> = Layer.scopedDiscard(
  Effect.gen(function* () {
    const queue = yield* RunQueue;
    const storage = yield* Storage;
    const context = yield* Effect.context<RunQueue | Storage | Credits>();
    const active = yield* storage.listActiveRoutines().pipe(Effect.orElseSucceed(() => []));
    for (const routine of active) yield* queue.setRoutine(routine).pipe(Effect.ignore);
    yield* queue.consumeRoutines((tick) => onRoutineTick(tick).pipe(Effect.provide(context)));
  }),
);
