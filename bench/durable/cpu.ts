// CPU time a run costs the machine, read from Linux's /proc: the host child's (every thread, those
// that ended included: ../process-cpu.ts) and that of the PostgreSQL backends serving the run's
// database. Wall time on a shared two-core machine says when a run ended; CPU time says how much work
// it took the machine, which is what a run on a saturated machine waits for (decision 0042).
import { readFileSync } from "node:fs";
import type pg from "pg";

/** A thread's CPU in ms at nanosecond resolution (/proc/<pid>/schedstat); 0 once it has ended. */
const threadCpuMs = (pid: number): number => {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]) / 1e6;
  } catch {
    return 0;
  }
};

/**
 * Each client backend connected to `database`, with its CPU so far, asked on `client` (the bench's
 * own connection, to another database: its backend is not counted).
 */
export const backendsCpu = async (client: pg.Client, database: string): Promise<ReadonlyMap<number, number>> => {
  const { rows } = await client.query<{ pid: number }>(
    "select pid from pg_stat_activity where datname = $1 and backend_type = 'client backend'",
    [database],
  );
  return new Map(rows.map(({ pid }) => [pid, threadCpuMs(pid)]));
};

/**
 * The backends' CPU between two snapshots: a backend that connected in between counts from zero;
 * one that disconnected in between is lost (pools keep theirs open for seconds, longer than a run).
 */
export const backendsCpuBetween = (before: ReadonlyMap<number, number>, after: ReadonlyMap<number, number>) =>
  [...after].reduce((sum, [pid, ms]) => sum + ms - (before.get(pid) ?? 0), 0);
