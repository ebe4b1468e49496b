import type { Agenda, Job, JobParameters } from "agenda";

type SaveJobState = Agenda["db"]["saveJobState"];

/**
 * With removeOnComplete, Agenda 6.2.6 finishes a one-shot job that succeeded with two statements:
 * it saves the job's final state (unlocked, lastFinishedAt) and then deletes the row. The save is
 * overwritten by the delete at once, so it is skipped: the job of a run is deleted in one statement
 * instead of two (decision 0042). Only that save is skipped (the job succeeded, has no next run and
 * is no longer locked: exactly when Agenda removes it next); a failed, retried or repeating job and
 * every touch are saved as before. Should the delete fail, the job stays locked instead of unlocked
 * without a next run, so it is delivered again once its lock expires and the engine drops it (its
 * run is finished); saved, it would have stayed in the table for good. Call before agenda.start().
 */
export const skipSaveBeforeRemove = (agenda: Agenda): void => {
  if (!agenda.attrs.removeOnComplete) return;
  const succeeded = new Set<string>();
  // Emitted in Job.run() after the handler returned and before its final save; a one-shot job's
  // nextRunAt is already null then (Agenda computes it before running the handler).
  // (A `remote` event is another process's job, relayed by a state notification: not ours to skip.)
  agenda.on("success", (job: Job, remote?: boolean) => {
    if (remote || !job?.attrs || job.attrs.nextRunAt || job.attrs._id === undefined) return;
    succeeded.add(String(job.attrs._id));
  });
  const db = agenda.db;
  const save: SaveJobState = db.saveJobState.bind(db);
  const saveUnlessRemovedNext: SaveJobState = async (job: JobParameters, options) => {
    const id = String(job._id);
    if (!job.lockedAt && !job.nextRunAt && succeeded.delete(id)) return;
    succeeded.delete(id);
    return save(job, options);
  };
  db.saveJobState = saveUnlessRemovedNext;
};
