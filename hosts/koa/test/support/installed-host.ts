import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../../../../", import.meta.url));
const manifestOf = (name: string) =>
  JSON.parse(readFileSync(join(root, "node_modules", name, "package.json"), "utf8")) as {
    readonly dependencies: Record<string, string>;
    readonly peerDependencies: Record<string, string>;
  };
/** @gleaner/koa's manifest, as the tests read it. */
export const koaManifest = manifestOf("@gleaner/koa");

/**
 * A folder where @gleaner/koa is installed as a user would install it alone: the package npm would
 * publish, unpacked into node_modules, beside exactly its `dependencies` (linked to the repository's
 * copies) and, of its optional peers, only those in `peers`. Returns the folder.
 */
export const installKoa = async (peers: ReadonlyArray<string> = []): Promise<string> => {
  const folder = mkdtempSync(join(tmpdir(), "gleaner-alone-"));
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const packed = JSON.parse(
    (await run(npm, ["pack", "-w", "@gleaner/koa", "--json", "--pack-destination", folder], { cwd: root })).stdout,
  ) as ReadonlyArray<{ readonly filename: string }>;
  const koa = join(folder, "node_modules/@gleaner/koa");
  mkdirSync(koa, { recursive: true });
  await run("tar", ["-xzf", join(folder, packed[0]?.filename ?? ""), "-C", koa, "--strip-components=1"]);
  // A peer's own dependencies sit beside it, where npm puts them (the bundle's external drivers are found there).
  const beside = peers.flatMap((peer) => Object.keys(manifestOf(peer).dependencies ?? {}));
  for (const name of new Set([...Object.keys(koaManifest.dependencies), ...peers, ...beside])) {
    const link = join(folder, "node_modules", name);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(realpathSync(join(root, "node_modules", name)), link, "dir");
  }
  return folder;
};
