import type { Agenda, Job } from "agenda";

/** How long to wait, after a handler returns, for Agenda to record the job (unlock or remove it). */
const bookkeepingMs = 5_000;

/**
 * The jobs this process is executing. A job counts until its handler has returned and Agenda has
 * recorded it ("complete", emitted after the job's state is saved), so a shutdown that waits on
 * settled() never closes the pool under Agenda's own final write.
 */
export class InFlight {
  private readonly pending = new Map<string, Promise<void>>();
  private readonly completed = new Map<string, () => void>();

  constructor(agenda: Agenda) {
    agenda.on("complete", (job: { attrs?: { _id?: unknown } }) => {
      const id = job?.attrs?._id;
      if (id !== undefined) this.completed.get(String(id))?.();
    });
  }

  /** Marks the job in flight; call the returned function when its handler has returned. */
  begin(job: Job<unknown>): () => void {
    const id = String(job.attrs._id);
    let handlerDone!: () => void;
    const handler = new Promise<void>((resolve) => {
      handlerDone = resolve;
    });
    const recorded = new Promise<void>((resolve) => {
      this.completed.set(id, resolve);
    });
    const whole = handler
      .then(() => Promise.race([recorded, new Promise<void>((resolve) => setTimeout(resolve, bookkeepingMs).unref())]))
      .finally(() => {
        this.completed.delete(id);
        this.pending.delete(id);
      });
    this.pending.set(id, whole);
    return handlerDone;
  }

  /** Resolves once every job in flight now (and any started meanwhile) is done. */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending.values()]);
  }
}
