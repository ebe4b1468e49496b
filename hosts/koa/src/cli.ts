#!/usr/bin/env node
import "reflect-metadata";
import { parseArgs } from "node:util";
import { type ApiError, type Credits, createApiKey, grantCredits, type Storage } from "@gleaner/core";
import { type Effect, ManagedRuntime } from "effect";
import { readConfig } from "./config.js";
import { serviceLayer, storeLayer } from "./layers.js";
import { startHost } from "./host.js";
import { runUseCase } from "./runtime.js";

const usage = `Usage: gleaner <command> [options]

Commands:
  serve [--dev-key]                          serve the API (and run the worker)
  worker                                     consume the run queue only (scale out; no HTTP)
  keys create --owner NAME [--credits N]     create an API key (printed once)
  credits grant --owner NAME --amount N      add credits to an owner

Configuration comes from GLEANER_* environment variables (see README.md).`;

const fail = (message: string): never => {
  console.error(message);
  process.exit(1);
};

const positiveInt = (name: string, value: string | undefined, fallback?: number): number => {
  if (value === undefined && fallback !== undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) return fail(`--${name} must be a whole number >= 0 (got ${value ?? "nothing"}).`);
  return n;
};

/** Runs one administrative use case against the configured store, then closes it. */
const admin = async <A>(
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

const main = async (argv: string[]): Promise<void> => {
  const [command, sub] = argv;
  const { values } = parseArgs({
    args: argv.slice(command === "keys" || command === "credits" ? 2 : 1),
    options: {
      owner: { type: "string" },
      credits: { type: "string" },
      amount: { type: "string" },
      "dev-key": { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
  });
  if (values.help || !command) return void console.log(usage);

  if (command === "serve") {
    const host = await startHost();
    console.log(`Gleaner listening on ${host.url}`);
    if (values["dev-key"]) {
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
    return;
  }
  if (command === "worker") {
    const config = readConfig();
    if (config.queue === "memory") {
      fail(
        "GLEANER_QUEUE=memory lives inside one process, so a separate worker would see no jobs; use `gleaner serve`, or GLEANER_QUEUE=agenda.",
      );
    }
    const runtime = ManagedRuntime.make(serviceLayer(config, {}, true));
    await runtime.runtime();
    console.log(`Gleaner worker consuming ${config.queue} with concurrency ${config.workerConcurrency}`);
    const stop = async () => {
      await runtime.dispose();
      process.exit(0);
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
    return;
  }
  if (command === "keys" && sub === "create") {
    const owner = values.owner ?? fail("keys create needs --owner NAME.");
    const credits = positiveInt("credits", values.credits, 0);
    const { key } = await admin(() => createApiKey(owner, credits));
    console.log(key);
    return;
  }
  if (command === "credits" && sub === "grant") {
    const owner = values.owner ?? fail("credits grant needs --owner NAME.");
    const amount = positiveInt("amount", values.amount);
    if (amount < 1) fail("--amount must be at least 1.");
    const { balance } = await admin(() => grantCredits(owner, amount));
    console.log(`Granted ${amount} credits to ${owner}; balance ${balance}.`);
    return;
  }
  fail(`Unknown command: ${argv.join(" ")}\n\n${usage}`);
};

main(process.argv.slice(2)).catch((error: unknown) => {
  fail(error instanceof Error ? error.message : String(error));
});
