import type { AgendaBackend, JobParameters, JobRepository } from "agenda";

/** What a job looked like when this process locked it, before Agenda's run() overwrote it. */
export interface Delivery {
  /** An earlier delivery started it (its lastRunAt was set): a worker died or lost the lock. */
  readonly startedBefore: boolean;
  /** The occurrence it was due at (a routine's scheduled time). */
  readonly dueAt: Date | null;
}

/**
 * Wraps any Agenda backend to remember, per locked job, what its stored row said at lock time.
 * Agenda's Job.run() sets lastRunAt and computes the next nextRunAt before calling the handler,
 * so the handler alone cannot tell a first delivery from a redelivery after a crash, nor a
 * routine's due time; the row returned by getNextJobToRun (the only way the processor locks a
 * job) still can.
 */
export const recordDeliveries = (backend: AgendaBackend) => {
  const seen = new Map<string, Delivery>();
  const inner = backend.repository;
  const getNextJobToRun = async (
    ...args: Parameters<JobRepository["getNextJobToRun"]>
  ): Promise<JobParameters | undefined> => {
    const job = await inner.getNextJobToRun(...args);
    if (job?._id) seen.set(String(job._id), { startedBefore: Boolean(job.lastRunAt), dueAt: job.nextRunAt ?? null });
    return job;
  };
  const repository = new Proxy(inner, {
    get: (target, property) => {
      if (property === "getNextJobToRun") return getNextJobToRun;
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  // Agenda connects the backend in its constructor and would swallow a failure there; the layer
  // connects first and Agenda's call reuses that promise.
  let connecting: Promise<void> | undefined;
  const wrapped: AgendaBackend = {
    name: backend.name,
    repository,
    notificationChannel: backend.notificationChannel,
    logger: backend.logger,
    ownsConnection: backend.ownsConnection,
    connect: () => (connecting ??= backend.connect()),
    disconnect: () => backend.disconnect(),
  };
  /** The delivery of a job this process locked; forgotten once taken. */
  const take = (id: unknown): Delivery | undefined => {
    const key = String(id);
    const delivery = seen.get(key);
    seen.delete(key);
    return delivery;
  };
  return { backend: wrapped, take };
};
