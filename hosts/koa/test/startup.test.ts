import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect } from "chai";
import { spawnUntil, stopChild } from "./support/spawn-until.js";

const cli = fileURLToPath(new URL("../dist/cli.js", import.meta.url));
/** The bin, which runs the CLI from its bundle (dist/bundle/cli.js). */
const bin = fileURLToPath(new URL("../bin/gleaner.js", import.meta.url));
const reportImports = fileURLToPath(new URL("./support/report-imports.mjs", import.meta.url));
const run = promisify(execFile);
const quiet = { ...process.env, GLEANER_LOG_LEVEL: "silent", GLEANER_PORT: "0", GLEANER_HOST: "127.0.0.1" };
for (const name of Object.keys(quiet))
  if (/^GLEANER_(STORAGE|QUEUE|PARSER|POSTGRES_URL|MONGODB_URL)$/.test(name)) delete quiet[name];

/** Runs the CLI to its end, expecting it to refuse; returns its stderr. */
const refusal = async (args: string[], env: Record<string, string>): Promise<string> => {
  const error = await run(process.execPath, [cli, ...args], { env: { ...quiet, ...env } }).then(
    () => null,
    (e: { code: number; stderr: string }) => e,
  );
  expect(error, "the command should fail").to.not.equal(null);
  expect(error?.code).to.equal(1);
  return error?.stderr ?? "";
};

/** Starts `gleaner serve`, waits until it listens, stops it; returns the packages it imported. */
const importsOfServe = async (env: Record<string, string>, entry = cli): Promise<ReadonlyArray<string>> => {
  const served = await spawnUntil(["--import", reportImports, entry, "serve"], { ...quiet, ...env }, /listening on/);
  await stopChild(served.child);
  return [...served.stderr().matchAll(/^\[import\] (\S+)$/gm)].map((m) => m[1] ?? "");
};

const drivers = ["playwright-core", "jsdom", "mongodb", "pg", "agenda", "@gleaner/postgres", "@gleaner/mongodb"];

describe("host start-up", function () {
  this.timeout(60_000);

  it("reports each bad variable on one line naming it, without Effect's schema tree", async () => {
    const stderr = await refusal(["serve"], {
      GLEANER_PORT: "eighty",
      GLEANER_WORKER_CONCURRENCY: "0",
      GLEANER_STORAGE: "oracle",
    });
    const lines = stderr.trim().split("\n");
    expect(lines[0]).to.equal("Invalid configuration:");
    expect(lines.slice(1)).to.have.length(3);
    expect(stderr).to.match(/^ {2}GLEANER_PORT: .*eighty/m);
    expect(stderr).to.match(/^ {2}GLEANER_WORKER_CONCURRENCY: must be a whole number from 1 to 64$/m);
    expect(stderr).to.match(/^ {2}GLEANER_STORAGE: .*memory, postgres, mongodb.*oracle/m);
  });

  it("refuses a bad GLEANER_MODEL_CONTEXT_TOKENS at start-up, naming it and its range", async () => {
    const words = await refusal(["serve"], { GLEANER_MODEL_CONTEXT_TOKENS: "lots" });
    expect(words).to.match(/^ {2}GLEANER_MODEL_CONTEXT_TOKENS: .*lots/m);
    const small = await refusal(["serve"], { GLEANER_MODEL_CONTEXT_TOKENS: "100" });
    expect(small).to.match(/^ {2}GLEANER_MODEL_CONTEXT_TOKENS: must be a whole number from 2048 to 10000000$/m);
  });

  it("names a missing or malformed store URL in one line, never echoing it", async () => {
    expect(await refusal(["keys", "create", "--owner", "a"], { GLEANER_STORAGE: "postgres" })).to.match(
      /^ {2}GLEANER_POSTGRES_URL: must be set$/m,
    );
    const malformed = await refusal(["serve"], {
      GLEANER_STORAGE: "mongodb",
      GLEANER_MONGODB_URL: "http://secret@example",
    });
    expect(malformed).to.match(/^ {2}GLEANER_MONGODB_URL: must be a URL like mongodb:\/\/\S+$/m);
    expect(malformed).to.not.contain("secret");
  });

  it("names an unreachable database's variable and cause in one line, at serve and at keys create", async () => {
    const unreachable = { GLEANER_STORAGE: "postgres", GLEANER_POSTGRES_URL: "postgres://nobody@127.0.0.1:1/gleaner" };
    for (const args of [["serve"], ["keys", "create", "--owner", "acme"]]) {
      const stderr = await refusal(args, unreachable);
      expect(stderr.trim().split("\n"), args.join(" ")).to.have.length(1);
      expect(stderr).to.match(/^GLEANER_POSTGRES_URL: .*ECONNREFUSED/);
      expect(stderr).to.not.contain("Something went wrong");
    }
  });

  it("serve on the memory set imports no other adapter's driver", async () => {
    const imported = await importsOfServe({});
    expect(imported).to.include.members(["@gleaner/memory", "@gleaner/htmlparser2"]);
    for (const driver of drivers) expect(imported, driver).to.not.include(driver);
  });

  it("imports a driver once the configuration selects its adapter", async () => {
    const imported = await importsOfServe({ GLEANER_PARSER: "jsdom" });
    expect(imported).to.include("jsdom");
    expect(imported).to.include("@gleaner/jsdom");
    // @gleaner/jsdom measures a page with htmlparser2 before jsdom parses it (decision 0016), but the
    // default parser's adapter is not loaded.
    expect(imported).to.not.include("@gleaner/htmlparser2");
  });

  it("the bin serves from the bundle: it resolves no Gleaner package, and no driver on the memory set", async () => {
    const imported = await importsOfServe({}, bin);
    // Everything of Gleaner and Effect is inside the bundle; only drivers, optional peers (and pino) stay outside it.
    for (const name of ["@gleaner/core", "@gleaner/koa", "@gleaner/memory", "effect", "inversify", "undici"]) {
      expect(imported, name).to.not.include(name);
    }
    for (const driver of drivers) expect(imported, driver).to.not.include(driver);
  });

  it("the bin's bundle imports a driver once the configuration selects its adapter", async () => {
    const imported = await importsOfServe({ GLEANER_PARSER: "jsdom" }, bin);
    // The optional peer is resolved from node_modules, so an absent one is noticed (optional-peers.test.ts).
    expect(imported).to.include("@gleaner/jsdom");
    expect(imported).to.include("jsdom");
    expect(imported).to.not.include("pg");
  });
});
