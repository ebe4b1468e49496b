import { execFile, execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect } from "chai";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../..", import.meta.url));
const dockerfile = readFileSync(join(root, "examples/Dockerfile"), "utf8");

/** The instructions of one stage (the lines from its FROM to the next), continuation lines joined. */
const stage = (index: number) => {
  const stages = dockerfile
    .replace(/\\\n/g, " ")
    .split("\n")
    .filter((line) => line.trim() !== "" && !line.trim().startsWith("#"))
    .reduce<string[][]>((all, line) => {
      if (line.startsWith("FROM ")) all.push([]);
      all[all.length - 1]?.push(line);
      return all;
    }, []);
  return stages[index] ?? [];
};

/**
 * No Docker engine runs on these machines, so the image itself is never built here. This runs the
 * Dockerfile's build steps as a Docker engine would: in a clean copy of the repository (what `COPY . .`
 * sees: the committed files), each RUN as written; then the image's command from the result.
 */
describe("examples/Dockerfile, its steps run in a clean copy of the repository", function () {
  this.timeout(900_000);
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "gleaner-image-"));
    execFileSync("git", ["clone", "--quiet", "--no-hardlinks", root, dir]);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("builds on Node 24 with npm ci and npm run build, and the image's command starts the gleaner bin", async () => {
    const build = stage(0);
    expect(build[0]).to.match(/^FROM node:24-slim/);
    const steps = build.filter((line) => line.startsWith("RUN ")).map((line) => line.slice(4).trim());
    expect(steps).to.deep.equal(["npm ci --no-audit --no-fund", "npm run build"]);
    for (const step of steps) await run("bash", ["-c", step], { cwd: dir, maxBuffer: 256 * 1024 * 1024 });

    const image = stage(1);
    const entrypoint = JSON.parse(image.find((line) => line.startsWith("ENTRYPOINT "))!.slice(11));
    const command = JSON.parse(image.find((line) => line.startsWith("CMD "))!.slice(4));
    expect([...entrypoint, ...command]).to.deep.equal(["node", "hosts/koa/bin/gleaner.js", "serve"]);
    // The same bin the durable profile starts (`gleaner serve`, `gleaner worker`), built and ready.
    const [node, bin] = entrypoint as [string, string];
    const { stdout } = await run(node === "node" ? process.execPath : node, [bin, "serve", "--help"], { cwd: dir });
    expect(stdout).to.match(/^gleaner serve/);
    const built = await run(process.execPath, [bin, "--help"], { cwd: dir });
    expect(built.stdout).to.contain("worker");
    // The console the API serves at / is built too.
    expect(existsSync(join(dir, "hosts/console/dist/index.html"))).to.equal(true);
  });
});
