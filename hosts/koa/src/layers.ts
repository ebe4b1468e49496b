import {
  type Credits,
  type DocumentParser,
  type Fetcher,
  type RunQueue,
  RunWorkerLive,
  type Storage,
} from "@gleaner/core";
import { HttpFetcherLive } from "@gleaner/http";
import { Layer } from "effect";
import type { HostConfig } from "./config.js";
import { parserPlugins, queuePlugins, select, storePlugins } from "./plugins.js";

export type GleanerServices = Storage | Credits | RunQueue | Fetcher | DocumentParser;

/** Adapters to use instead of the ones the configuration selects (the conformance suite does). */
export interface LayerOverrides {
  readonly store?: Layer.Layer<Storage | Credits, unknown>;
  readonly queue?: Layer.Layer<RunQueue, unknown>;
  readonly fetcher?: Layer.Layer<Fetcher, unknown>;
  readonly parser?: Layer.Layer<DocumentParser, unknown>;
}

/**
 * The whole service graph for one process: the configured adapters and, when `worker` is on,
 * the run worker consuming the queue with GLEANER_WORKER_CONCURRENCY runs at a time.
 */
export const serviceLayer = (
  config: HostConfig,
  overrides: LayerOverrides = {},
  worker = true,
): Layer.Layer<GleanerServices, unknown> => {
  const adapters = Layer.mergeAll(
    overrides.store ?? select(storePlugins, config.storage, "GLEANER_STORAGE").layer(config),
    overrides.queue ?? select(queuePlugins, config.queue, "GLEANER_QUEUE").layer(config),
    overrides.fetcher ??
      HttpFetcherLive({ allowPrivateTargets: config.allowPrivateTargets, proxyUrls: config.proxyUrls }),
    overrides.parser ?? select(parserPlugins, config.parser, "GLEANER_PARSER").layer(config),
  );
  return worker ? Layer.provideMerge(RunWorkerLive(config.workerConcurrency), adapters) : adapters;
};
