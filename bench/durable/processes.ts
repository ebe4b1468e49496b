// Spawning the benches' Gleaner processes: a host (host-child.ts) or a `gleaner worker` (the CLI),
// each configured only by its GLEANER_* environment, as a deployment configures them.
import { type ChildProcess, spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { READY_MARKER } from "./markers.js";

const here = dirname(fileURLToPath(import.meta.url));
// The bin, as a team runs it: the CLI from its bundle.
const cli = join(here, "../../hosts/koa/bin/gleaner.js");

export type Env = Readonly<Record<string, string>>;

/**
 * Extra Node flags for a kind of child, from the bench's own environment: e.g.
 * BENCH_WORKER_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles every worker (Node refuses
 * --cpu-prof in NODE_OPTIONS).
 */
const nodeArgs = (variable: string): string[] => process.env[variable]?.split(" ").filter(Boolean) ?? [];

/** The variables selecting PostgreSQL + Agenda on `url` (Agenda keeps its jobs in the store's schema). */
export const durableEnv = (url: string): Env => ({
  GLEANER_STORAGE: "postgres",
  GLEANER_QUEUE: "agenda",
  GLEANER_POSTGRES_URL: url,
});
/** The variables selecting the in-process memory store and queue (the defaults, said out loud). */
export const memoryEnv: Env = { GLEANER_STORAGE: "memory", GLEANER_QUEUE: "memory" };

/** A child's own variables only: none of the parent's GLEANER_* settings leak into it. */
const childEnv = (env: Env): NodeJS.ProcessEnv => {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("GLEANER_")));
  return { ...inherited, GLEANER_LOG_LEVEL: "warn", ...env };
};

const exited = (child: ChildProcess): Promise<void> =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once("exit", () => resolve()));

/** Resolves with the first stdout line starting with `marker` (its rest), rejects if the child exits first. */
const lineFrom = (child: ChildProcess, marker: string, what: string): Promise<string> =>
  new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on("line", (line) => {
      if (line.startsWith(marker)) resolve(line.slice(marker.length));
    });
    child.once("exit", (code, signal) => reject(new Error(`${what} exited (${code ?? signal}) before it was ready`)));
  });

export interface BenchProcess {
  readonly pid: number;
  /** SIGTERM (a graceful close: jobs in flight finish), then waits for the exit. */
  readonly stop: () => Promise<void>;
}

const handle = (child: ChildProcess): BenchProcess => ({
  pid: child.pid!,
  stop: async () => {
    child.kill("SIGTERM");
    await exited(child);
  },
});

export interface HostProcess extends BenchProcess {
  readonly url: string;
  readonly key: string;
}

/**
 * The command that starts `command` with `args`: pinned to the CPUs in BENCH_HOST_CPUS (e.g. "0") by
 * taskset (Linux) when it is set, so a host can be given cores of its own (decision 0042).
 */
const pinned = (command: string, args: ReadonlyArray<string>): [string, string[]] => {
  const cpus = process.env.BENCH_HOST_CPUS;
  return cpus ? ["taskset", ["-c", cpus, command, ...args]] : [command, [...args]];
};

/** A host child (`serve`: API and worker; `api`: API only) on `env`; resolves once it serves. */
export const spawnHost = async (role: "serve" | "api", env: Env): Promise<HostProcess> => {
  const child = spawn(
    ...pinned(process.execPath, [
      ...nodeArgs("BENCH_HOST_NODE_ARGS"),
      "--import",
      "tsx",
      join(here, "host-child.ts"),
      role,
    ]),
    {
      cwd: here,
      env: childEnv(env),
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const ready = JSON.parse(await lineFrom(child, READY_MARKER, `host (${role})`)) as { url: string; key: string };
  return { ...handle(child), ...ready };
};

/** `gleaner worker` (hosts/koa's CLI, built) on `env`; resolves once it consumes the queue. */
export const spawnWorker = async (env: Env): Promise<BenchProcess> => {
  const child = spawn(process.execPath, [...nodeArgs("BENCH_WORKER_NODE_ARGS"), cli, "worker"], {
    env: childEnv(env),
    stdio: ["ignore", "pipe", "inherit"],
  });
  await lineFrom(child, "Gleaner worker consuming", "gleaner worker");
  return handle(child);
};
