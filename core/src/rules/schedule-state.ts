import type { DatasetRecord } from "../domain.js";
import type { ScheduleState } from "../schema/dataset.js";

export const pausedReason = "The dataset is paused; scheduled runs resume when it is active again.";
export const draftReason = "The dataset is a draft; set status active to run on schedule.";
export const completedReason =
  "The recipe cannot be navigated any more; create a dataset with an explicit list source.";

/**
 * The schedule as the API shows it, from the dataset's status and its routine's cron (lifecycle in
 * docs/decisions/0008-schedules.md). `schedule` shows the cron only while the routine is active.
 */
export const scheduleView = (
  status: DatasetRecord["status"],
  cron: string | null,
  previous: ScheduleState | null,
): Pick<DatasetRecord, "schedule" | "scheduleState"> => {
  if (cron === null) return { schedule: null, scheduleState: null };
  if (previous?.status === "completed" && previous.cron === cron) return { schedule: null, scheduleState: previous };
  if (status === "active") {
    const reason = previous?.status === "active" && previous.cron === cron ? previous.reason : null;
    return { schedule: cron, scheduleState: { cron, status: "active", reason } };
  }
  return {
    schedule: null,
    scheduleState: { cron, status: "paused", reason: status === "paused" ? pausedReason : draftReason },
  };
};
