import { readdir, readFile } from "node:fs/promises";

/**
 * Why a watchdog: V8's heap limit (`--js-flags=--max-old-space-size`) stops only JavaScript objects;
 * ArrayBuffers, DOM nodes, canvases and decoded media live outside that heap (measured: typed arrays
 * took a renderer past 2 GB in 7 s under a 256 MB heap limit). So the resident memory of every renderer
 * the browser started is read from /proc, and a renderer over the cap is killed: its pages crash, and
 * the read in flight fails `limit_exceeded`. Page JavaScript cannot opt out of either.
 */

const PAGE_BYTES = 4096;

interface ProcessInfo {
  readonly pid: number;
  readonly ppid: number;
}

const readProcesses = async (): Promise<ProcessInfo[]> => {
  const entries = await readdir("/proc").catch(() => [] as string[]);
  const found: ProcessInfo[] = [];
  await Promise.all(
    entries
      .filter((name) => /^\d+$/.test(name))
      .map(async (name) => {
        const stat = await readFile(`/proc/${name}/stat`, "utf8").catch(() => null);
        // `pid (comm) state ppid …`; comm may contain spaces and parentheses, so split after the last ")".
        const after = stat?.slice(stat.lastIndexOf(")") + 2).split(" ");
        if (after?.[1] !== undefined) found.push({ pid: Number(name), ppid: Number(after[1]) });
      }),
  );
  return found;
};

const cmdline = (pid: number): Promise<string> =>
  readFile(`/proc/${pid}/cmdline`, "utf8")
    .then((text) => text.split("\0").join(" "))
    .catch(() => "");

const residentBytes = async (pid: number): Promise<number> => {
  const statm = await readFile(`/proc/${pid}/statm`, "utf8").catch(() => "");
  return Number(statm.split(" ")[1] ?? 0) * PAGE_BYTES;
};

const descendantsOf = (root: number, processes: ReadonlyArray<ProcessInfo>): number[] => {
  const children = new Map<number, number[]>();
  for (const p of processes) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p.pid]);
  const found: number[] = [];
  for (let queue = [root]; queue.length > 0; ) {
    const next = children.get(queue.shift() as number) ?? [];
    found.push(...next);
    queue.push(...next);
  }
  return found;
};

/**
 * Finds the renderers of the browser whose command line carries `marker`. The browser's pid and
 * which processes are renderers are looked up once each (a command line never changes).
 */
export const rendererFinder = (marker: string) => {
  let browser: number | null = null;
  const isRenderer = new Map<number, boolean>();
  return async (): Promise<number[]> => {
    const processes = await readProcesses();
    if (browser === null || !processes.some((p) => p.pid === browser)) {
      const lines = await Promise.all(processes.map(async (p) => [p.pid, await cmdline(p.pid)] as const));
      browser = lines.find(([, line]) => line.includes(marker) && !line.includes("--type="))?.[0] ?? null;
      if (browser === null) return [];
    }
    const renderers: number[] = [];
    const alive = new Set(processes.map((p) => p.pid));
    for (const pid of isRenderer.keys()) if (!alive.has(pid)) isRenderer.delete(pid);
    for (const pid of descendantsOf(browser, processes)) {
      let renderer = isRenderer.get(pid);
      if (renderer === undefined) {
        const line = await cmdline(pid);
        renderer = line.includes("--type=renderer");
        // A zygote's fresh child keeps the zygote's command line until it knows what it is: ask again.
        if (!line.includes("--type=zygote")) isRenderer.set(pid, renderer);
      }
      if (renderer) renderers.push(pid);
    }
    return renderers;
  };
};

export interface MemoryWatchdog {
  /** How many renderers it has killed so far (a read compares the count before and after itself). */
  readonly kills: () => number;
  readonly stop: () => void;
}

/**
 * Every `intervalMs`, kills (SIGKILL) each renderer of the marked browser whose resident memory is
 * over `capBytes`. Where /proc does not exist it does nothing (the V8 heap limit still applies).
 */
export const startMemoryWatchdog = (marker: string, capBytes: number, intervalMs = 250): MemoryWatchdog => {
  let killed = 0;
  let busy = false;
  const renderers = rendererFinder(marker);
  const sweep = async () => {
    if (busy) return;
    busy = true;
    try {
      for (const pid of await renderers()) {
        if ((await residentBytes(pid)) <= capBytes) continue;
        try {
          process.kill(pid, "SIGKILL");
          killed++;
        } catch {
          // Gone already: nothing to do.
        }
      }
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(() => void sweep(), intervalMs);
  timer.unref();
  return { kills: () => killed, stop: () => clearInterval(timer) };
};
