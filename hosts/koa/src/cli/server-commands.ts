import { PromMetrics } from "../metrics/prom.js";
import { tracingLayer } from "../tracing.js";
import "reflect-metadata";
import { type ApiError, type Credits, createApiKey, grantCredits, type Storage } from "@gleaner/core";
import type * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as ManagedRuntime from "effect/ManagedRuntime";
import { readConfig } from "../config.js";
import { startHost } from "../host.js";
import { runUseCase } from "../http/runtime.js";
import { serviceLayer, storeLayer } from "../layers.js";
import { makeLogger, pinoLoggerLayer } from "../logging.js";
import { fail, positiveInt } from "./args.js";

// The commands that build adapters. cli.ts imports this module only when one of them runs, so
// `gleaner --help` and the API-client commands start without loading drivers or a browser.

/** Runs one administrative use case against the configured store, then closes it. */
export const admin = async <A>(
  run: (config: ReturnType<typeof readConfig>) => Effect.Effect<A, ApiError, Storage | Credits>,
): Promise<A> => {
  const config = readConfig();
  if (config.storage === "memory") {
    console.error(
      "Note: GLEANER_STORAGE=memory keeps data inside one process, so this change is lost when the command exits. " +
        "Use `gleaner serve --dev-key` for a development key, or a durable store (GLEANER_STORAGE=postgres).",
    );
  }
  const runtime = ManagedRuntime.make(storeLayer(config));
  try {
    // Start the store first, so an unreachable database is reported as such (naming its variable),
    // not as the use case's internal error.
    await runtime.runtime();
    return await runUseCase(runtime, run(config));
  } finally {
    await runtime.dispose();
  }
};

/** `gleaner serve`: the API and the worker in this process. */
export const serve = async (devKey: boolean): Promise<void> => {
  const host = await startHost();
  console.log(`Gleaner listening on ${host.url}`);
  if (devKey) {
    const key = await host.createKey("dev", 1000);
    console.log("Development owner: dev (1000 credits)");
    console.log(`API key: ${key}`);
  }
  const stop = async () => {
    await host.close();
    process.exit(0);
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
};

/** `gleaner worker`: queue consumers only. */
export const worker = async (): Promise<void> => {
  const config = readConfig();
  if (config.queue === "memory") {
    fail(
      "GLEANER_QUEUE=memory lives inside one process, so a separate worker would see no jobs; use `gleaner serve`, or GLEANER_QUEUE=agenda.",
    );
  }
  // The host's one log format and level (GLEANER_LOG_LEVEL), as `serve` logs: pino, JSON lines.
  const log = makeLogger(config.logLevel);
  const metrics = config.metrics ? new PromMetrics() : null;
  const runtime = ManagedRuntime.make(
    Layer.provideMerge(
      serviceLayer(config, {}, true, metrics),
      Layer.merge(pinoLoggerLayer(log), tracingLayer(config.tracing)),
    ),
  );
  await runtime.runtime();
  log.info({ queue: config.queue, concurrency: config.workerConcurrency }, "worker consuming the run queue");
  const stop = async () => {
    await runtime.dispose();
    process.exit(0);
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
};

/** `gleaner keys create`. */
export const keysCreate = async (owner: string | undefined, credits: string | undefined): Promise<void> => {
  const name = owner ?? fail("keys create needs --owner NAME.");
  const amount = positiveInt("credits", credits, 0);
  const { key } = await admin(() => createApiKey(name, amount));
  console.log(key);
};

/** `gleaner credits grant`. */
export const creditsGrant = async (owner: string | undefined, amountText: string | undefined): Promise<void> => {
  const name = owner ?? fail("credits grant needs --owner NAME.");
  const amount = positiveInt("amount", amountText);
  if (amount < 1) fail("--amount must be at least 1.");
  const { balance } = await admin(() => grantCredits(name, amount));
  console.log(`Granted ${amount} credits to ${name}; balance ${balance}.`);
};
