// The engine on the memory store (some of its methods wrapped by a test, to record calls or alter
// answers) and a test's fetcher, with an owner and the shop site's dataset.
import { Htmlparser2ParserLive } from "@gleaner/htmlparser2";
import { MemoryRunQueueLive, MemoryStoreLive } from "@gleaner/memory";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as Logger from "effect/Logger";
import * as LogLevel from "effect/LogLevel";
import * as ManagedRuntime from "effect/ManagedRuntime";
import * as Option from "effect/Option";
import {
  CreateDatasetRequest,
  createApiKey,
  createDataset,
  decodeBody,
  createRun,
  executeRun,
  type Fetcher,
  type OwnerId,
  type RunId,
  Storage,
  type StorageService,
} from "../../src/index.js";
import { body } from "./shop-site.js";

export const shopEngine = async (
  wrap: (storage: StorageService) => Partial<StorageService>,
  fetcher: Layer.Layer<Fetcher>,
) => {
  const store = Layer.effect(
    Storage,
    Effect.map(Storage, (storage): StorageService => ({ ...storage, ...wrap(storage) })),
  ).pipe(Layer.provideMerge(MemoryStoreLive));
  const quiet = Logger.minimumLogLevel(LogLevel.None);
  const runtime = ManagedRuntime.make(
    Layer.mergeAll(store, MemoryRunQueueLive(), Htmlparser2ParserLive, fetcher, quiet),
  );
  const run = <A, E>(effect: Effect.Effect<A, E, any>) => runtime.runPromise(effect as Effect.Effect<A, E, never>);
  const { owner } = await run(createApiKey(`owner-${globalThis.crypto.randomUUID()}`, 100));
  const dataset = await run(
    Effect.flatMap(decodeBody(CreateDatasetRequest, body), (request) => createDataset(owner.id, request)),
  );
  /** Creates a run of the dataset and executes it; the run as stored. */
  const execute = async () => {
    const { runId } = await run(createRun(owner.id, dataset.id));
    await run(executeRun({ runId: runId as RunId, datasetId: dataset.id as never }, false));
    return Option.getOrThrow(await run(Effect.flatMap(Storage, (s) => s.getRun(owner.id as OwnerId, runId))));
  };
  return { run, owner, dataset, execute, dispose: () => runtime.dispose() };
};
