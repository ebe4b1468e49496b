import { execFile, execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect } from "chai";
import { parse as parseYaml } from "yaml";

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

/** A ```sh NAME block of the durable profile guide (the blocks readme-walk.test.ts runs as written). */
const guideBlock = (name: string) => {
  const guide = readFileSync(join(root, "docs/guides/durable-profile.md"), "utf8");
  const block = new RegExp(`\`\`\`sh ${name}\\n([\\s\\S]*?)\`\`\``).exec(guide)?.[1];
  if (!block) throw new Error(`docs/guides/durable-profile.md has no \`\`\`sh ${name} block.`);
  return {
    /** The long-running `gleaner` subcommand the block ends with (serve, worker). */
    command: /npx gleaner (\w+)[^\n]*\s*$/.exec(block)?.[1],
    /** Each GLEANER_* variable the block sets, with its value. */
    variables: Object.fromEntries([...block.matchAll(/\b(GLEANER_\w+)=(\S+)/g)].map((m) => [m[1]!, m[2]!])),
  };
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

  it("starts, in the compose file, the same gleaner serve and gleaner worker as the durable profile guide, with its variables", () => {
    const compose = parseYaml(readFileSync(join(root, "examples/production-postgres/compose.yaml"), "utf8"), {
      merge: true,
    }) as { services: Record<string, { command: string[]; environment: Record<string, string>; build?: unknown }> };
    const image = stage(1);
    const entrypoint = JSON.parse(image.find((line) => line.startsWith("ENTRYPOINT "))!.slice(11));
    expect(entrypoint).to.deep.equal(["node", "hosts/koa/bin/gleaner.js"]);
    for (const [service, name] of [
      ["api", "durable-serve"],
      ["worker", "durable-worker"],
    ] as const) {
      const guide = guideBlock(name);
      const started = compose.services[service]!;
      expect(started.build, service).to.deep.include({ dockerfile: "examples/Dockerfile" });
      expect(started.command, `${service} runs the guide's gleaner ${guide.command}`).to.deep.equal([guide.command]);
      expect(Object.keys(guide.variables).sort(), name).to.deep.equal([
        "GLEANER_POSTGRES_URL",
        "GLEANER_QUEUE",
        "GLEANER_STORAGE",
      ]);
      for (const [variable, value] of Object.entries(guide.variables)) {
        expect(started.environment, `${service} sets ${variable}`).to.have.property(variable);
        // The database's address is the deployment's own; the profile is the guide's.
        if (variable !== "GLEANER_POSTGRES_URL") expect(started.environment[variable], variable).to.equal(value);
      }
      expect(started.environment.GLEANER_POSTGRES_URL).to.match(/^postgres:\/\/\S+@postgres:5432\//);
    }
  });
});
