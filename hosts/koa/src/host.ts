import { createApiKey } from "@gleaner/core";
import type * as Effect from "effect/Effect";
import * as TestClock from "effect/TestClock";
import type { Container } from "inversify";
import type { Logger } from "pino";
import { type HostConfig, readConfig } from "./config.js";
import { buildContainer, type HttpServer, TOKENS } from "./container.js";
import type { LayerOverrides } from "./layers.js";
import { type GleanerRuntime, runUseCase } from "./http/runtime.js";

export interface RunningHost {
  readonly url: string;
  readonly runtime: GleanerRuntime;
  /** Creates an owner (if needed) and a key for it; returns the key text. */
  readonly createKey: (owner: string, credits?: number) => Promise<string>;
  readonly close: () => Promise<void>;
  /** Moves the virtual clock forward (hosts started with `virtualClock` only). */
  readonly advanceClock: (ms: number) => Promise<void>;
}

export interface StartHostOptions {
  readonly config?: Partial<HostConfig>;
  readonly overrides?: LayerOverrides;
  readonly worker?: boolean;
  /** Run on Effect's TestClock; advance it with `advanceClock`. */
  readonly virtualClock?: boolean;
  readonly logger?: Logger;
}

/** Builds the container, starts the HTTP server, and returns a handle that shuts both down. */
export const startHost = async (options: StartHostOptions = {}): Promise<RunningHost> => {
  const config: HostConfig = { ...readConfig(), ...options.config };
  const { config: _partial, ...rest } = options;
  const container: Container = buildContainer({ config, ...rest });
  const runtime = container.get<GleanerRuntime>(TOKENS.Runtime);
  // Build the adapters before accepting traffic, so a bad database URL fails start-up.
  await runtime.runtime();
  const server = container.get<HttpServer>(TOKENS.HttpServer);
  const url = await server.listen();
  return {
    url,
    runtime,
    createKey: async (owner, credits = 0) => (await runUseCase(runtime, createApiKey(owner, credits))).key,
    advanceClock: async (ms) => {
      if (!options.virtualClock) throw new Error("advanceClock needs a host started with virtualClock: true.");
      await runtime.runPromise(TestClock.adjust(ms) as unknown as Effect.Effect<void>);
    },
    close: async () => {
      await server.close();
      await container.unbindAllAsync();
    },
  };
};
