import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect } from "chai";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../..", import.meta.url));
/** The Node range the workspace is developed and tested on (decision 0001): every package states the same. */
const nodeRange = JSON.parse(readFileSync(`${root}package.json`, "utf8")).engines.node as string;

/** The packages published to npm, with a file each must ship beside dist/ (besides README and package.json). */
const published: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
  ["core", []],
  ["adapters/agenda", []],
  ["adapters/htmlparser2", []],
  ["adapters/http", []],
  ["adapters/jsdom", []],
  ["adapters/memory", []],
  ["adapters/mongodb", []],
  ["adapters/openai", []],
  ["adapters/playwright", []],
  ["adapters/postgres", ["migrations/0001_init.sql"]],
  ["adapters/searxng", []],
  ["hosts/client", ["openapi.json"]],
  ["hosts/console", ["dist/index.html"]],
  ["hosts/koa", ["bin/gleaner.js"]],
  ["conformance", ["fixtures/books/books.json"]],
];

interface Packed {
  readonly name: string;
  readonly files: ReadonlyArray<{ readonly path: string }>;
}

describe("the packages as npm would publish them", function () {
  this.timeout(180_000);
  let packed: Packed[];
  before(async () => {
    const args = ["pack", "--dry-run", "--json", ...published.flatMap(([dir]) => ["-w", dir])];
    const npm = process.platform === "win32" ? "npm.cmd" : "npm";
    packed = JSON.parse((await run(npm, args, { cwd: root, maxBuffer: 64 * 1024 * 1024 })).stdout);
  });

  for (const [dir, extra] of published) {
    it(`${dir}: its README, engines, publishConfig, what it runs from; no sources or tests`, () => {
      const manifest = JSON.parse(readFileSync(`${root}${dir}/package.json`, "utf8"));
      expect(manifest.private, dir).to.not.equal(true);
      expect(manifest.engines?.node, `${dir} engines.node`).to.equal(nodeRange);
      expect(manifest.publishConfig?.access).to.equal("public");
      const files = (packed.find((p) => p.name === manifest.name)?.files ?? []).map((f) => f.path);
      // The console ships its built files, not a module: it has no "." entry.
      const entry = manifest.exports["."];
      const entryFiles = entry ? [entry.default.replace("./", ""), entry.types.replace("./", "")] : [];
      for (const needed of ["README.md", "package.json", ...entryFiles, ...extra]) {
        expect(files, `${dir} ships ${needed}`).to.include(needed);
      }
      expect(
        files.filter((f) => /^(src|test)\//.test(f) || f.endsWith(".test.js") || f.endsWith(".tsbuildinfo")),
      ).to.deep.equal([]);
    });
  }

  it("hosts/koa: the adapters the memory profile does not use are optional peers, not dependencies", () => {
    const manifest = JSON.parse(readFileSync(`${root}hosts/koa/package.json`, "utf8"));
    const optional = ["agenda", "jsdom", "mongodb", "openai", "playwright", "postgres", "searxng"].map(
      (name) => `@gleaner/${name}`,
    );
    expect(Object.keys(manifest.peerDependencies ?? {}).sort()).to.deep.equal(optional);
    for (const name of optional) {
      expect(manifest.peerDependenciesMeta?.[name], name).to.deep.equal({ optional: true });
      expect(manifest.dependencies, name).to.not.have.property(name);
      // The workspace still builds and tests the host with every adapter.
      expect(manifest.devDependencies?.[name], name).to.equal(manifest.peerDependencies[name]);
    }
    const adapters = Object.keys(manifest.dependencies).filter((name) =>
      published.some(([dir]) => dir.startsWith("adapters/") && name === `@gleaner/${dir.slice("adapters/".length)}`),
    );
    expect(adapters.sort()).to.deep.equal(["@gleaner/htmlparser2", "@gleaner/http", "@gleaner/memory"]);
    // The host's README tells an installer which variable needs which peer.
    const readme = readFileSync(`${root}hosts/koa/README.md`, "utf8");
    for (const name of optional) expect(readme, name).to.match(new RegExp(`^\\| .*\`${name}\``, "m"));
  });
});
