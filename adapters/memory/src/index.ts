import { Credits, Storage } from "@gleaner/core";
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import { makeMemoryCredits } from "./credits.js";
import { MemoryState } from "./state.js";
import { makeMemoryStorage } from "./storage.js";

export { type MemoryRunQueueOptions, MemoryRunQueueLive } from "./run-queue.js";
export { MemoryState } from "./state.js";

/**
 * Storage and Credits in process, sharing one state. Each build of the layer starts empty, so a
 * test can take a fresh store per case; nothing survives the process.
 */
export const MemoryStoreLive: Layer.Layer<Storage | Credits> = Layer.effectContext(
  Effect.sync(() => {
    const state = new MemoryState();
    return Context.make(Storage, makeMemoryStorage(state)).pipe(Context.add(Credits, makeMemoryCredits(state)));
  }),
);
