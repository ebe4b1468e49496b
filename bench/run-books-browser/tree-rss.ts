import { readdirSync, readFileSync } from "node:fs";

/**
 * Resident memory of this process and every descendant (Chromium's browser, renderer and helper
 * processes), in MB, from /proc. A Node-only maxRSS would leave out the browser, which is most of it.
 */
export const treeRssMb = (root = process.pid): number => {
  const children = new Map<number, number[]>();
  const rssPages = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const pid = Number(entry);
      const ppid = Number(fields[1]);
      rssPages.set(pid, Number(fields[21]));
      children.set(ppid, [...(children.get(ppid) ?? []), pid]);
    } catch {
      // The process ended while we looked.
    }
  }
  let pages = 0;
  for (const queue = [root]; queue.length > 0; ) {
    const pid = queue.pop()!;
    pages += rssPages.get(pid) ?? 0;
    queue.push(...(children.get(pid) ?? []));
  }
  return (pages * 4096) / 2 ** 20;
};

/** Samples treeRssMb every `everyMs` until stopped; returns the peak. */
export const watchPeakRss = (everyMs = 100): (() => number) => {
  let peak = treeRssMb();
  const timer = setInterval(() => {
    peak = Math.max(peak, treeRssMb());
  }, everyMs);
  return () => {
    clearInterval(timer);
    return Math.max(peak, treeRssMb());
  };
};
