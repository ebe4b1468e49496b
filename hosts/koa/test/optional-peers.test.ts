import { type ChildProcess, execFile } from "node:child_process";
import { once } from "node:events";
import { rmSync } from "node:fs";
import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";
import { join } from "node:path";
import { promisify } from "node:util";
import { browserListDataset } from "@gleaner/conformance";
import { expect } from "chai";
import * as Cause from "effect/Cause";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import { ConfigurationError } from "../src/config-errors.js";
import { importPeer } from "../src/optional-peers.js";
import { installKoa, koaManifest } from "./support/installed-host.js";
import { spawnUntil, stopChild } from "./support/spawn-until.js";

const run = promisify(execFile);
/** The environment without any GLEANER_* setting of the machine running the tests. */
const clean = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !name.startsWith("GLEANER_") && name !== "NODE_PATH"),
);
const quiet = { ...clean, GLEANER_LOG_LEVEL: "silent", GLEANER_PORT: "0", GLEANER_HOST: "127.0.0.1" };
const install = (name: string) => `npm install ${name}@${koaManifest.peerDependencies[name]}`;

describe("@gleaner/koa installed without its optional peers", function () {
  this.timeout(120_000);
  let folder: string;
  let koa: string;
  before(async () => {
    folder = await installKoa();
    koa = join(folder, "node_modules/@gleaner/koa");
  });
  after(() => rmSync(folder, { recursive: true, force: true }));

  /** Runs `entry` (a file of the installed package) to its end, expecting it to refuse; returns its stderr. */
  const refusal = async (entry: string, args: string[], env: Record<string, string>): Promise<string> => {
    const error = await run(process.execPath, [join(koa, entry), ...args], { env: { ...quiet, ...env } }).then(
      () => null,
      (e: { code: number; stderr: string }) => e,
    );
    expect(error, "the command should fail").to.not.equal(null);
    expect(error?.code).to.equal(1);
    return error?.stderr.trim() ?? "";
  };

  it("cannot resolve the optional peers, so the tests below run where a user would", () => {
    const resolve = createRequire(join(koa, "package.json")).resolve;
    expect(resolve("@gleaner/memory")).to.be.a("string");
    for (const peer of Object.keys(koaManifest.peerDependencies)) expect(() => resolve(peer), peer).to.throw();
  });

  describe("serving the memory profile from the bin", () => {
    let child: ChildProcess;
    let url: string;
    let key: string;
    let page: Server;
    before(async () => {
      page = createServer((_, res) => res.end("<ul><li class=item><b>one</b></li></ul>")).listen(0, "127.0.0.1");
      await once(page, "listening");
      const served = await spawnUntil(
        [join(koa, "bin/gleaner.js"), "serve", "--dev-key"],
        { ...quiet, GLEANER_ALLOW_PRIVATE_TARGETS: "127.0.0.1" },
        /API key: (\S+)/,
      );
      child = served.child;
      key = served.match[1] ?? "";
      url = /listening on (\S+)/.exec(served.stdout())?.[1] ?? "";
    });
    after(async () => {
      await stopChild(child);
      page?.close();
    });

    it("answers /healthz", async () => {
      expect((await fetch(`${url}/healthz`)).status).to.equal(200);
    });

    it("a render: browser source's preview fails its read naming @gleaner/playwright and how to install it", async () => {
      const { port } = page.address() as AddressInfo;
      const answer = await fetch(`${url}/v1/sources/preview`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ source: browserListDataset("peers", `http://127.0.0.1:${port}/`).source }),
      });
      expect(answer.status).to.equal(200);
      const { preview } = (await answer.json()) as { preview: { checks: Array<{ checkId: string; message: string }> } };
      expect(preview.checks.find((c) => c.checkId === "coverage")?.message).to.contain(
        `render: browser needs the package @gleaner/playwright: ${install("@gleaner/playwright")}`,
      );
    });
  });

  const selections: ReadonlyArray<readonly [string, string[], Record<string, string>, string]> = [
    [
      "GLEANER_STORAGE=postgres",
      ["serve"],
      { GLEANER_STORAGE: "postgres", GLEANER_POSTGRES_URL: "postgres://127.0.0.1:5432/test" },
      "@gleaner/postgres",
    ],
    [
      "GLEANER_STORAGE=mongodb",
      ["keys", "create", "--owner", "acme"],
      { GLEANER_STORAGE: "mongodb", GLEANER_MONGODB_URL: "mongodb://127.0.0.1:1/gleaner" },
      "@gleaner/mongodb",
    ],
    ["GLEANER_PARSER=jsdom", ["serve"], { GLEANER_PARSER: "jsdom" }, "@gleaner/jsdom"],
    [
      "GLEANER_MODEL_URL",
      ["serve"],
      { GLEANER_MODEL_URL: "http://127.0.0.1:1/v1", GLEANER_MODEL_NAME: "any" },
      "@gleaner/openai",
    ],
    ["GLEANER_SEARCH_URL", ["serve"], { GLEANER_SEARCH_URL: "http://127.0.0.1:1" }, "@gleaner/searxng"],
  ];
  for (const [selectedBy, args, env, peer] of selections) {
    it(`${selectedBy}: gleaner ${args[0]} exits 1 with one line naming ${peer} and how to install it`, async () => {
      const stderr = await refusal("bin/gleaner.js", args, env);
      expect(stderr).to.equal(`${selectedBy} needs the package ${peer}: ${install(peer)}`);
    });
  }

  it("the unbundled entry (dist/cli.js) refuses the same way", async () => {
    const postgres = await refusal("dist/cli.js", ["serve"], {
      GLEANER_STORAGE: "postgres",
      GLEANER_POSTGRES_URL: "postgres://127.0.0.1:5432/test",
    });
    expect(postgres).to.equal(
      `GLEANER_STORAGE=postgres needs the package @gleaner/postgres: ${install("@gleaner/postgres")}`,
    );
  });
});

describe("@gleaner/koa installed with @gleaner/postgres beside it", function () {
  this.timeout(120_000);
  let folder: string;
  before(async () => {
    folder = await installKoa(["@gleaner/postgres"]);
  });
  after(() => rmSync(folder, { recursive: true, force: true }));

  it("GLEANER_QUEUE=agenda: gleaner worker exits 1 naming @gleaner/agenda, the store's package being found", async () => {
    const bin = join(folder, "node_modules/@gleaner/koa/bin/gleaner.js");
    const env = {
      ...quiet,
      GLEANER_STORAGE: "postgres",
      GLEANER_POSTGRES_URL: process.env.GLEANER_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test",
      GLEANER_QUEUE: "agenda",
    };
    const error = await run(process.execPath, [bin, "worker"], { env }).then(
      () => null,
      (e: { code: number; stderr: string }) => e,
    );
    expect(error?.code).to.equal(1);
    expect(error?.stderr.trim()).to.equal(
      `GLEANER_QUEUE=agenda needs the package @gleaner/agenda: ${install("@gleaner/agenda")}`,
    );
  });
});

describe("importPeer", () => {
  const absent = "@gleaner/no-such-adapter";

  it("names the choice and the package when the package itself is absent", async () => {
    const error = await Effect.runPromise(Effect.flip(importPeer("GLEANER_X=y", absent, () => import(absent))));
    expect(error).to.be.instanceOf(ConfigurationError);
    expect(error.message).to.equal(`GLEANER_X=y needs the package ${absent}: npm install ${absent}`);
  });

  it("lets any other load error through as it is: a package the peer imports, missing, is not the peer missing", async () => {
    const exit = await Effect.runPromiseExit(
      importPeer("GLEANER_STORAGE=postgres", "@gleaner/postgres", () => import(absent)),
    );
    expect(Exit.isFailure(exit) && Cause.isDie(exit.cause)).to.equal(true);
    const defect = Exit.isFailure(exit) ? Cause.squash(exit.cause) : null;
    expect(defect).to.not.be.instanceOf(ConfigurationError);
    expect((defect as { code?: string }).code).to.equal("ERR_MODULE_NOT_FOUND");
    expect(String((defect as Error).message)).to.contain(absent);
  });
});
