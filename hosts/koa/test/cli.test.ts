import { type ChildProcess, execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect } from "chai";

const cli = fileURLToPath(new URL("../dist/cli.js", import.meta.url));
const run = promisify(execFile);
const env = { ...process.env, GLEANER_LOG_LEVEL: "silent", GLEANER_STORAGE: "memory" };

describe("gleaner CLI", () => {
  it("serve --dev-key prints the address and a key that works on its own line", async () => {
    const child: ChildProcess = spawn(process.execPath, [cli, "serve", "--dev-key"], {
      env: { ...env, GLEANER_PORT: "0", GLEANER_HOST: "127.0.0.1" },
    });
    try {
      let output = "";
      child.stdout?.on("data", (chunk) => {
        output += String(chunk);
      });
      while (!/^API key: gl_\S+$/m.test(output)) await once(child.stdout!, "data");
      const url = /listening on (\S+)/.exec(output)?.[1];
      const key = /^API key: (gl_\S+)$/m.exec(output)?.[1];
      const response = await fetch(`${url}/v1/usage`, { headers: { authorization: `Bearer ${key}` } });
      expect(response.status).to.equal(200);
      expect(response.headers.get("x-credits-remaining")).to.equal("1000");
    } finally {
      child.kill("SIGTERM");
      await once(child, "exit");
    }
  });

  it("keys create prints one key and warns that memory storage keeps nothing", async () => {
    const { stdout, stderr } = await run(
      process.execPath,
      [cli, "keys", "create", "--owner", "acme", "--credits", "5"],
      { env },
    );
    expect(stdout.trim()).to.match(/^gl_[A-Za-z0-9_-]{43}$/);
    expect(stderr).to.contain("GLEANER_STORAGE=memory");
  });

  it("refuses bad arguments with a message and exit code 1", async function () {
    this.timeout(60_000);
    const refusals = [
      ["keys", "create"],
      ["credits", "grant", "--owner", "x", "--amount=-3"],
      ["credits", "grant", "--owner", "x", "--amount", "0"],
      ["frobnicate"],
    ];
    await Promise.all(
      refusals.map(async (args) => {
        const error = await run(process.execPath, [cli, ...args], { env }).then(
          () => null,
          (e: { code: number; stderr: string }) => e,
        );
        expect(error, args.join(" ")).to.not.equal(null);
        expect(error?.code).to.equal(1);
        expect(error?.stderr).to.match(/needs --owner|must be|Unknown command/);
      }),
    );
  });

  it("refuses a configuration it cannot honour, naming the variable", async () => {
    const error = await run(process.execPath, [cli, "serve"], { env: { ...env, GLEANER_PORT: "eighty" } }).then(
      () => null,
      (e: { code: number; stderr: string }) => e,
    );
    expect(error?.code).to.equal(1);
    expect(error?.stderr).to.contain("GLEANER_PORT");
  });
});
