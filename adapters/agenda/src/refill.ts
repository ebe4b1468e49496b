import type { Agenda, Job } from "agenda";

/** The parts of Agenda 6.2.6's JobProcessor (internal, hence pinned) that a refill touches. */
interface JobProcessor {
  readonly isRunning: boolean;
  readonly lockedJobs: Job[];
  readonly runningJobs: Job[];
  runOrRetry(job: Job): Promise<void>;
  jobQueueFilling(name: string): Promise<void>;
  jobProcessing(): Promise<void>;
}

/**
 * Agenda locks jobs only when it scans (every processEvery) or hears NOTIFY of a new job; when a
 * job finishes it starts only jobs it already holds, and with lockLimit = concurrency it holds
 * none. A backlog then waited for the next scan per freed slot: one job per slot per 5 s by
 * default. So once a job has finished and released its slot, lock the next waiting ones of its
 * name now, within the same limits a scan obeys. Call after agenda.start().
 */
export const refillWhenJobsFinish = (agenda: Agenda): void => {
  const processor = (agenda as unknown as { jobProcessor?: JobProcessor }).jobProcessor;
  if (!processor) return;
  const runOrRetry = processor.runOrRetry.bind(processor);
  processor.runOrRetry = async (job: Job) => {
    await runOrRetry(job);
    if (!processor.isRunning) return;
    const heldBefore = new Set(processor.lockedJobs);
    await processor.jobQueueFilling(job.attrs.name);
    // Stopped while it filled: Agenda's stop unlocked what it held then, not what this fill locked.
    if (!processor.isRunning) {
      const lockedByThisFill = processor.lockedJobs.filter((locked) => !heldBefore.has(locked));
      await agenda.db.unlockJobs(lockedByThisFill.map((locked) => String(locked.attrs._id))).catch(() => undefined);
      return;
    }
    void processor.jobProcessing();
  };
};
