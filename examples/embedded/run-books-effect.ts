/**
 * Embedding Gleaner without HTTP: compose the core's ports from adapters, call the use cases,
 * and run the worker in your own process. This example crawls the local books fixture site.
 *
 *   (the Promise version beside it, run-books.ts, is the one to start from without Effect)
 */
import { startBooksSite } from "@gleaner/conformance";
import {
  CreateDatasetRequest,
  createApiKey,
  createDataset,
  decodeBody,
  createRun,
  getRun,
  RoutinesLive,
  RunWorkerLive,
  terminalRunStatuses,
  AllowedTargets,
  parseAllowList,
} from "@gleaner/core";
import { Htmlparser2ParserLive } from "@gleaner/htmlparser2";
import { HttpFetcherLive } from "@gleaner/http";
import { MemoryRunQueueLive, MemoryStoreLive } from "@gleaner/memory";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as ManagedRuntime from "effect/ManagedRuntime";
import { booksDataset } from "../books-dataset.js";

/** Every port the use cases need, plus the worker that executes runs (the fixture site is on loopback). */
export const embeddedLayer = () => {
  const allowPrivateTargets = ["127.0.0.1/32"];
  const adapters = Layer.mergeAll(
    MemoryStoreLive,
    MemoryRunQueueLive(),
    HttpFetcherLive({ allowPrivateTargets }),
    Htmlparser2ParserLive,
    // The same list for the rule that refuses private source addresses when a dataset is created.
    Layer.succeed(AllowedTargets, parseAllowList(allowPrivateTargets)),
  );
  return Layer.provideMerge(Layer.mergeAll(RunWorkerLive(2), RoutinesLive), adapters);
};

export const runBooksExample = async () => {
  const site = await startBooksSite();
  const runtime = ManagedRuntime.make(embeddedLayer());
  try {
    return await runtime.runPromise(
      Effect.gen(function* () {
        const { owner } = yield* createApiKey("embedded-example", 100);
        // The use cases take decoded requests: decode a body as the HTTP API would first.
        const request = yield* decodeBody(CreateDatasetRequest, booksDataset(site.url));
        const dataset = yield* createDataset(owner.id, request);
        const { runId } = yield* createRun(owner.id, dataset.id);
        let run = yield* getRun(owner.id, runId);
        while (!terminalRunStatuses.includes(run.status)) {
          yield* Effect.sleep("20 millis");
          run = yield* getRun(owner.id, runId);
        }
        return run;
      }),
    );
  } finally {
    await runtime.dispose();
    await site.close();
  }
};

if (import.meta.url === `file://${process.argv[1]}`) {
  const run = await runBooksExample();
  console.log(`Run ${run.id}: ${run.status}, ${run.rowDeltas.new} new rows.`);
}
