import { readFileSync } from "node:fs";

/**
 * A process's user + system CPU time in ms, every thread's (ended ones included), from Linux's
 * /proc/<pid>/stat: fields 14 and 15, in clock ticks of 10 ms (USER_HZ), so read a difference over
 * many ticks as a mean. The command name (field 2) may hold spaces: fields are counted after it.
 */
export const processCpuMs = (pid: number): number => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
};
