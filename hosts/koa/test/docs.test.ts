import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { expect } from "chai";
import { block, docBlocks, root } from "./doc-blocks.js";

/**
 * The docs as a reader meets them (issue 36): README is a front door under 10 KB linking every guide,
 * every relative link in README and the guides leads to a file that exists, every shell block they show
 * is tagged and run by a test, and the benches' and decisions' pages stay short. The guide "Writing an
 * adapter"'s `sh test-one` and `sh test-capability` blocks are run here as written.
 */
const read = (file: string) => readFileSync(join(root, file), "utf8");
const guides = readdirSync(join(root, "docs/guides"))
  .filter((name) => name.endsWith(".md"))
  .map((name) => `docs/guides/${name}`);
const pages = ["README.md", ...guides];

/** Markdown links and images `[text](target)`, outside code blocks and inline code. */
const links = (text: string): string[] =>
  [
    ...text
      .replace(/```[\s\S]*?```/g, "")
      .replace(/`[^`\n]*`/g, "")
      .matchAll(/\]\(([^)\s]+)\)/g),
  ].map((match) => match[1]!);
const isRelative = (target: string) => !/^[a-z]+:/i.test(target) && !target.startsWith("#");

/** Fenced shell blocks, ```sh TAG, with their tag ("" when untagged) and text. */
const shellBlocks = (text: string): { tag: string; body: string }[] =>
  [...text.matchAll(/^```(?:sh|bash|shell)(?: +(\S+))?\n([\s\S]*?)^```$/gm)].map((match) => ({
    tag: match[1] ?? "",
    body: match[2]!.trim(),
  }));
/**
 * README's untagged blocks: the two commands (CI runs `npm install` and `npm test`; the walk's server
 * block runs `npm start`) and the key a reader pastes from npm start (the walk test passes it as KEY).
 */
const readmeUntagged = [/^npm install\nnpm start$/, /^npm test$/, /^export KEY=gl_…/];

/** The source directories of the workspace packages under `parent` (adapters/*, hosts/*). */
const packagesIn = (parent: string) =>
  readdirSync(join(root, parent))
    .map((name) => `${parent}/${name}/src`)
    .filter((dir) => existsSync(join(root, dir)));
/** TypeScript and JavaScript sources under `dir`, recursively. */
const sourceFiles = (dir: string): string[] =>
  readdirSync(join(root, dir), { recursive: true, encoding: "utf8" })
    .filter((name) => /\.(ts|tsx|js|mjs|cjs)$/.test(name))
    .map((name) => `${dir}/${name}`);

const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

describe("the docs: a front door, guides, links that lead somewhere and commands that run", function () {
  this.timeout(120_000);

  it("README is under 10 KB and links every guide", () => {
    const size = statSync(join(root, "README.md")).size;
    expect(size, `README.md is ${kib(size)}`).to.be.below(10_000);
    const linked = new Set(links(read("README.md")).map((target) => target.split("#")[0]));
    for (const guide of guides) expect([...linked], `README.md does not link ${guide}`).to.include(guide);
  });

  it("every relative link in README and the guides points at a file that exists", () => {
    const broken: string[] = [];
    for (const page of pages) {
      for (const target of links(read(page)).filter(isRelative)) {
        const path = join(root, dirname(page), decodeURIComponent(target.split("#")[0]!));
        if (!existsSync(path)) broken.push(`${page} → ${target}`);
      }
    }
    expect(broken).to.deep.equal([]);
  });

  it("every shell block in README and the guides is tagged, listed under its page and run by a test", () => {
    const tests = readdirSync(join(root, "hosts/koa/test"))
      .filter((name) => name.endsWith(".test.ts"))
      .map((name) => read(`hosts/koa/test/${name}`))
      .join("\n");
    const untested: string[] = [];
    for (const page of pages) {
      for (const { tag, body } of shellBlocks(read(page))) {
        if (tag === "" && page === "README.md" && readmeUntagged.some((allowed) => allowed.test(body))) continue;
        if ((docBlocks as Record<string, string>)[tag] !== page)
          untested.push(`${page}: \`\`\`sh ${tag} ${body.slice(0, 40)}`);
      }
    }
    expect(
      untested,
      "a shell block not in doc-blocks.ts under its page (run it in a test, or show it indented)",
    ).to.deep.equal([]);
    // Each listed block is read by a test through block() (or a helper named …Block that calls it).
    const unread = Object.keys(docBlocks).filter((tag) => !new RegExp(`(?:block|Block)\\("${tag}"`).test(tests));
    expect(unread, "a block in doc-blocks.ts no test runs").to.deep.equal([]);
  });

  it("bench/README.md is under 20 KB; docs/decisions is under 120 KB and holds no record 0020–0038", () => {
    const bench = statSync(join(root, "bench/README.md")).size;
    expect(bench, `bench/README.md is ${kib(bench)}`).to.be.below(20_000);
    const records = readdirSync(join(root, "docs/decisions"));
    expect(
      records.filter((name) => /^00(2\d|3[0-8])-/.test(name)),
      "records replaced by 0042",
    ).to.deep.equal([]);
    const decisions = records.reduce((sum, name) => sum + statSync(join(root, "docs/decisions", name)).size, 0);
    expect(decisions, `docs/decisions is ${kib(decisions)}`).to.be.below(120_000);
  });

  it("every decision record the source cites (decision NNNN, docs/decisions/NNNN) exists", () => {
    const records = new Set(readdirSync(join(root, "docs/decisions")).map((name) => name.slice(0, 4)));
    const sourceDirs = ["core/src", "conformance/src", ...packagesIn("adapters"), ...packagesIn("hosts")];
    const missing: string[] = [];
    for (const file of sourceDirs.flatMap(sourceFiles)) {
      // A citation may wrap onto the comment's next line.
      const text = read(file).replace(/\n\s*(?:\*|\/\/)\s*/g, " ");
      for (const match of text.matchAll(
        /decisions?\s+(?:records?\s+)?((?:\d{4}(?:\s*(?:,|and|&|–|-)\s*)?)+)|docs\/decisions\/(\d{4})/gi,
      )) {
        for (const number of (match[1] ?? match[2]!).match(/\d{4}/g)!)
          if (!records.has(number)) missing.push(`${file}: ${match[0].trim()}`);
      }
    }
    expect(missing, "cite the record that holds the decision now, or drop the citation").to.deep.equal([]);
  });

  /** Runs a block of the guide as written; answers its output once it passed with at least one case. */
  const runGuideBlock = async (tag: "test-one" | "test-capability"): Promise<string> => {
    const child = spawn("bash", ["-euo", "pipefail", "-c", block(tag)], { cwd: root, env: process.env });
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += String(chunk);
    });
    child.stderr.on("data", (chunk) => {
      out += String(chunk);
    });
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    expect(code, out.slice(-3000)).to.equal(0);
    expect(out)
      .to.match(/^ {2}[1-9]\d* passing/m)
      .and.not.to.match(/failing/);
    return out;
  };

  it("runs the guide's `npm run test:one` command as written (writing-an-adapter.md, sh test-one)", async () => {
    expect(await runGuideBlock("test-one")).to.contain("retention");
  });

  it("runs one capability of the conformance suite with the guide's command (sh test-capability), and no other", async () => {
    const out = await runGuideBlock("test-capability");
    // The suite's one block of cases shown is the capability's: no other capability ran.
    expect(out.match(/^ {4}\S.*$/gm)).to.deep.equal(["    rows (endpoints 5 and 6)"]);
  });
});
