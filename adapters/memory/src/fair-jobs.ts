import type { RunJob } from "@gleaner/core";

/**
 * Waiting run jobs served one owner at a time, in turn: each take serves the owner at the head of
 * the rotation and moves it to the back. An owner who queues twenty runs gets every other slot
 * while another owner waits with one, instead of all twenty first.
 */
export class FairJobs {
  /** Map insertion order is the rotation; an owner with nothing waiting leaves it. */
  private readonly byOwner = new Map<string, RunJob[]>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  push(job: RunJob): void {
    const owner = job.ownerId ?? "";
    const waiting = this.byOwner.get(owner);
    if (waiting) waiting.push(job);
    else this.byOwner.set(owner, [job]);
    this.count++;
  }

  /** The next job in turn, or undefined when none waits. */
  take(): RunJob | undefined {
    const next = this.byOwner.entries().next();
    if (next.done) return undefined;
    const [owner, waiting] = next.value;
    const job = waiting.shift();
    this.byOwner.delete(owner);
    if (waiting.length > 0) this.byOwner.set(owner, waiting);
    if (job) this.count--;
    return job;
  }
}
