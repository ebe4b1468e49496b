import { readdir, readFile } from "node:fs/promises";

/**
 * Why a watchdog: V8's heap limit (`--js-flags=--max-old-space-size`) stops only JavaScript objects;
 * ArrayBuffers, DOM nodes, canvases and decoded media live outside that heap (decision 0015). So the resident memory of every renderer
 * the browser started is read from /proc, and a renderer over the cap is killed: its pages crash, and
 * the read in flight fails `limit_exceeded`. Page JavaScript cannot opt out of either.
 */

const PAGE_BYTES = 4096;

/** A process's children: the union of its threads' `children` lists (a child belongs to the thread that forked it). */
const childrenOf = async (pid: number): Promise<number[]> => {
  const tasks = await readdir(`/proc/${pid}/task`).catch(() => [] as string[]);
  const lists = await Promise.all(
    tasks.map((task) => readFile(`/proc/${pid}/task/${task}/children`, "utf8").catch(() => "")),
  );
  return lists.flatMap((list) =>
    list
      .split(" ")
      .filter((word) => word !== "")
      .map(Number),
  );
};

const descendantsOf = async (root: number): Promise<number[]> => {
  const found: number[] = [];
  for (let queue = [root]; queue.length > 0; ) {
    const next = await childrenOf(queue.shift() as number);
    found.push(...next);
    queue.push(...next);
  }
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

/**
 * Finds the renderers of the browser this process launched with `marker` on its command line (only
 * this process's children are looked at). Which processes are renderers is asked once per process.
 */
export const rendererFinder = (marker: string) => {
  let browser: number | null = null;
  const isRenderer = new Map<number, boolean>();
  return async (): Promise<number[]> => {
    if (browser === null || (await cmdline(browser)) === "") {
      browser = null;
      for (const child of await childrenOf(process.pid)) {
        if ((await cmdline(child)).includes(marker)) browser = child;
      }
      if (browser === null) return [];
    }
    const descendants = await descendantsOf(browser);
    const alive = new Set(descendants);
    for (const pid of isRenderer.keys()) if (!alive.has(pid)) isRenderer.delete(pid);
    const renderers: number[] = [];
    for (const pid of descendants) {
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
 * Every `intervalMs` while `active()` (a read is in flight), kills (SIGKILL) each renderer of the
 * marked browser whose resident memory is over `capBytes`. Where /proc does not exist it does nothing
 * (the V8 heap limit still applies).
 */
export const startMemoryWatchdog = (
  marker: string,
  capBytes: number,
  active: () => boolean,
  intervalMs = 250,
): MemoryWatchdog => {
  let killed = 0;
  let busy = false;
  const renderers = rendererFinder(marker);
  const sweep = async () => {
    if (busy || !active()) return;
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
