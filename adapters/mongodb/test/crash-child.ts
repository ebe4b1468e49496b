import { readFile } from "node:fs/promises";
import { type RunAcceptance, Storage } from "@gleaner/core";
import * as Effect from "effect/Effect";
import * as ManagedRuntime from "effect/ManagedRuntime";
import { MongoStoreLive } from "../src/index.js";

// A worker process for crash.test.ts: accepts the run described in the file it is given, and
// says "accepting" on stdout just before, so the parent can kill it in the middle.
// Usage: node --import tsx crash-child.ts <url> <database> <acceptance.json>

const [url, database, file] = process.argv.slice(2);
if (!url || !database || !file) throw new Error("usage: crash-child.ts <url> <database> <acceptance.json>");
const acceptance = JSON.parse(await readFile(file, "utf8")) as RunAcceptance;
const runtime = ManagedRuntime.make(MongoStoreLive({ url, database }));
await runtime.runPromise(Effect.void);
process.stdout.write("accepting\n");
const outcome = await runtime.runPromise(Effect.flatMap(Storage, (storage) => storage.acceptRun(acceptance)));
process.stdout.write(`${outcome._tag}\n`);
await runtime.dispose();
