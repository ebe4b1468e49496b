import { createRequire } from "node:module";

/**
 * The test functions the suites register their cases with, as Keyv's and abstract-level's suites
 * take theirs: mocha's by default, or any runner's with the same shape (Node's `node:test` has it)
 * through `useTestFunctions` before a suite is registered.
 */
/** A block or case: `this` is the runner's own context (mocha's has `timeout`), unknown to the cases. */
type Block = (this: unknown) => void;
type Case = (this: unknown) => unknown;

export interface TestFunctions {
  readonly describe: (name: string, fn: Block) => unknown;
  readonly it: (name: string, fn: Case) => unknown;
  readonly before: (fn: Case) => unknown;
  readonly after: (fn: Case) => unknown;
  readonly beforeEach: (fn: Case) => unknown;
}

/** mocha's functions when mocha is installed (an optional peer); null otherwise. */
const mocha = (): TestFunctions | null => {
  try {
    return createRequire(import.meta.url)("mocha") as TestFunctions;
  } catch {
    return null;
  }
};

let chosen: TestFunctions | null = null;
const current = (): TestFunctions => {
  chosen ??= mocha();
  if (chosen === null) throw new Error("No test functions: install mocha, or call useTestFunctions first.");
  return chosen;
};

/** Registers the next suites with these functions (e.g. `import * as test from "node:test"`). */
export const useTestFunctions = (functions: TestFunctions): void => {
  chosen = functions;
};

export const describe = (name: string, fn: Block) => void current().describe(name, fn);
export const it = (name: string, fn: Case) => void current().it(name, fn);
export const before = (fn: Case) => void current().before(fn);
export const after = (fn: Case) => void current().after(fn);
export const beforeEach = (fn: Case) => void current().beforeEach(fn);

/**
 * Gives the cases of the surrounding block `ms` to finish where the runner counts time per case
 * (mocha's `this.timeout`); a runner without such a limit needs nothing. Call it with `this` of a
 * `function () {}` block.
 */
export const allowMs = (context: unknown, ms: number): void => {
  const timeout = (context as { timeout?: (ms: number) => void } | undefined)?.timeout;
  if (typeof timeout === "function") timeout.call(context, ms);
};
