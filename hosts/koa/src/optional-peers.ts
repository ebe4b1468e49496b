import { readFileSync } from "node:fs";
import { createRequire, findPackageJSON } from "node:module";
import * as Effect from "effect/Effect";
import { ConfigurationError } from "./config-errors.js";

/** The range of `name` in this package's peerDependencies (found from this module, bundled or not). */
const peerRange = (name: string): string | undefined => {
  const manifest = findPackageJSON(import.meta.url);
  if (!manifest) return undefined;
  const { peerDependencies } = JSON.parse(readFileSync(manifest, "utf8")) as {
    readonly peerDependencies?: Record<string, string>;
  };
  return peerDependencies?.[name];
};

/** Node's refusal to find `name` itself, not a file or a package inside it. */
const isMissing = (error: unknown, name: string): boolean =>
  (error as { readonly code?: unknown } | null)?.code === "MODULE_NOT_FOUND" &&
  String((error as Error).message).startsWith(`Cannot find module '${name}'`);

/**
 * Imports an adapter @gleaner/koa lists as an optional peer, once the peer resolves from here (the
 * CLI's bundle carries the adapter's code in a chunk, so loading the chunk alone would not notice an
 * absent peer). When it does not, fails with a ConfigurationError naming what selected it and the
 * command that installs it, e.g. "GLEANER_STORAGE=postgres needs the package @gleaner/postgres:
 * npm install @gleaner/postgres@0.1.0"; any other error stays a defect, as an import that throws always was.
 */
export const importPeer = <Module>(
  selectedBy: string,
  name: string,
  load: () => Promise<Module>,
): Effect.Effect<Module, ConfigurationError> =>
  Effect.try({ try: () => createRequire(import.meta.url).resolve(name), catch: (error) => error }).pipe(
    Effect.catchAll((error) => {
      if (!isMissing(error, name)) return Effect.die(error);
      const range = peerRange(name);
      const install = range ? `${name}@${range}` : name;
      return Effect.fail(new ConfigurationError(`${selectedBy} needs the package ${name}: npm install ${install}`));
    }),
    Effect.zipRight(Effect.promise(load)),
  );
