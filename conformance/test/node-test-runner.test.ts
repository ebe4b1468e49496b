import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect } from "chai";

const run = promisify(execFile);
const otherRunner = (name: string) => fileURLToPath(new URL(`./other-runners/${name}`, import.meta.url));
/** Runs a file under `node --test` and reads the TAP summary's pass and fail counts. */
const underNodeTest = async (file: string) => {
  const { stdout } = await run(process.execPath, ["--import", "tsx", "--test", "--test-reporter=tap", file]);
  const count = (name: string) => Number(new RegExp(`^# ${name} (\\d+)$`, "m").exec(stdout)?.[1]);
  return { stdout, pass: count("pass"), fail: count("fail") };
};

const root = fileURLToPath(new URL("../..", import.meta.url));

describe("running part of the suites", function () {
  this.timeout(120_000);

  it("runs the store contract under node:test through useTestFunctions, every case passing", async () => {
    const { stdout, pass, fail } = await underNodeTest(otherRunner("store-contract.node-test.ts"));
    expect(pass, stdout.slice(-2000)).to.be.above(30);
    expect(fail).to.equal(0);
    expect(stdout).to.contain("memory, under node:test: concurrency and idempotency");
  });

  it("runs the parser contract under node:test through useTestFunctions, every case passing", async () => {
    const { stdout, pass, fail } = await underNodeTest(otherRunner("parser-contract.node-test.ts"));
    expect(pass, stdout.slice(-2000)).to.be.above(10);
    expect(fail).to.equal(0);
    expect(stdout).to.contain("jsdom, under node:test: DocumentParser contract");
  });

  it("runs one file with the adapter guide's command, npm run test:one -- FILE, and nothing else", async () => {
    const npm = process.platform === "win32" ? "npm.cmd" : "npm";
    const { stdout } = await run(npm, ["run", "test:one", "--", "conformance/test/contract.test.ts"], { cwd: root });
    expect(stdout)
      .to.match(/^ {2}\d+ passing/m)
      .and.not.to.match(/failing/);
    // Only that file's cases ran: none of the suites the repository's own test command runs besides.
    expect(stdout).to.contain("contract check (every conformance answer is validated against the OpenAPI document)");
    expect(stdout).to.not.contain("Gleaner conformance: memory").and.not.to.contain("research grounding");
  });
});
