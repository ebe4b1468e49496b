// CPU time a run costs the machine, read from Linux's /proc: the host child's (every thread, those
// that ended included) and that of the PostgreSQL backends serving the run's database. Wall time on a
// shared two-core machine says when a run ended; CPU time says how much work it took the machine,
// which is what a run on a saturated machine waits for (decision 0038).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import pg from "pg";

/** Clock ticks per second of /proc/<pid>/stat's times (USER_HZ, 100 on every common kernel). */
const ticksPerSecond = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;

/** A process's user + system CPU in ms, every thread's, ended threads' included (10 ms resolution). */
export const processCpuMs = (pid: number): number => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name (which may hold spaces), from field 3 (state): utime and stime are
  // fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
};

/** A thread's CPU in ms at nanosecond resolution (/proc/<pid>/schedstat); 0 once it has ended. */
const threadCpuMs = (pid: number): number => {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]) / 1e6;
  } catch {
    return 0;
  }
};

/** Each client backend connected to `database` (on the server `baseUrl` names), with its CPU so far. */
export const backendsCpu = async (baseUrl: string, database: string): Promise<ReadonlyMap<number, number>> => {
  const client = new pg.Client({ connectionString: baseUrl, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>(
      "select pid from pg_stat_activity where datname = $1 and backend_type = 'client backend'",
      [database],
    );
    return new Map(rows.map(({ pid }) => [pid, threadCpuMs(pid)]));
  } finally {
    await client.end();
  }
};

/**
 * The backends' CPU between two snapshots: a backend that connected in between counts from zero;
 * one that disconnected in between is lost (pools keep theirs open for seconds, longer than a run).
 */
export const backendsCpuBetween = (before: ReadonlyMap<number, number>, after: ReadonlyMap<number, number>) =>
  [...after].reduce((sum, [pid, ms]) => sum + ms - (before.get(pid) ?? 0), 0);
