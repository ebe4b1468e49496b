import { Effect, Layer } from "effect";
import type { DocumentParser } from "../ports/document-parser.js";
import type { Fetcher } from "../ports/fetcher.js";
import { RunQueue } from "../ports/run-queue.js";
import type { Storage } from "../ports/storage.js";
import { executeRun } from "./execute.js";

/**
 * The worker: consumes run jobs with bounded concurrency for as long as the layer lives. A host
 * includes it in `serve` (API + worker in one process) and `worker` (queue consumer only).
 */
export const RunWorkerLive = (
  concurrency: number,
): Layer.Layer<never, never, RunQueue | Storage | Fetcher | DocumentParser> =>
  Layer.scopedDiscard(
    Effect.gen(function* () {
      const queue = yield* RunQueue;
      const context = yield* Effect.context<Storage | Fetcher | DocumentParser>();
      yield* queue.consume(concurrency, (job, redelivered) =>
        executeRun(job, redelivered).pipe(Effect.provide(context), Effect.catchAllCause(Effect.logError)),
      );
    }),
  );
