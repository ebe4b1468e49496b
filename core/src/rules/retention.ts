import * as Context from "effect/Context";
import { isoAt } from "../time.js";

const dayMs = 24 * 60 * 60 * 1000;

/**
 * How long a finished run's record is kept (SPEC.md: artifacts 30 days): its trace, facts,
 * failures, plan and artifacts with their page bodies. Rows, their revisions, the observations they
 * cite, each dataset's latest accepted page reads and the ledger are kept for good: they are the
 * data, and they grow with it, not with runs. GLEANER_RETENTION_DAYS on the host.
 */
export class RetentionPolicy extends Context.Reference<RetentionPolicy>()("@gleaner/core/RetentionPolicy", {
  defaultValue: (): { readonly days: number } => ({ days: 30 }),
}) {}

/** The instant before which a record is past retention, at `now` (ms). */
export const retentionCutoff = (now: number, days: number): string => isoAt(now - days * dayMs);

/** Whether an artifact is kept at `now` (ms): created within `days` before it. */
export const isRetained = (now: number, days: number) => {
  const cutoff = retentionCutoff(now, days);
  return (artifact: { readonly createdAt: string }) => artifact.createdAt >= cutoff;
};

/** Whether a run's record was removed by retention: it finished before the cutoff. */
export const recordRemoved = (run: { readonly completedAt: string | null }, now: number, days: number): boolean =>
  run.completedAt !== null && run.completedAt < retentionCutoff(now, days);

/** What a run past retention answers for its record, in diagnostics' unknowns. */
export const removedRecordMessage = (days: number): string =>
  `This run's record (trace, facts, artifacts) was removed ${days} days after it finished (GLEANER_RETENTION_DAYS); ` +
  "the rows it wrote, their evidence and history are kept.";
