import { type MemoryState, newestRunFirst } from "./state.js";

/**
 * What the embedded store keeps of finished runs' evidence, so a long-lived process does not grow
 * with every run (a 50-page run's evidence is ~7 MB of heap, most of it page bodies):
 *
 * - evidence (trace, facts, failures, plan) of the newest `evidenceRunsPerDataset` finished runs of
 *   each dataset; an older run's evidence is dropped whole (its diagnostics then have none);
 * - artifacts (page bodies) of the newest `artifactRunsPerDataset` of those; a failed or blocked
 *   run's artifacts go as soon as a newer run of the dataset finished.
 *
 * Besides, the retention prune (`pruneRunRecords`) removes every record past GLEANER_RETENTION_DAYS.
 */
export const evidenceRunsPerDataset = 20;
export const artifactRunsPerDataset = 5;

/** Applies the limits above to a dataset's finished runs. */
export const pruneEvidence = (state: MemoryState, datasetId: string): void => {
  const finished = [...state.runs.values()]
    .filter((r) => r.datasetId === datasetId && state.evidence.has(r.id))
    .sort(newestRunFirst);
  for (const [index, run] of finished.entries()) {
    if (index >= evidenceRunsPerDataset) {
      state.evidence.delete(run.id);
      continue;
    }
    const evidence = state.evidence.get(run.id)!;
    const superseded = index > 0 && (run.status === "failed" || run.status === "blocked");
    if ((index >= artifactRunsPerDataset || superseded) && evidence.artifacts.length > 0)
      state.evidence.set(run.id, { ...evidence, artifacts: [] });
  }
};

/** Storage.pruneRunRecords: the records of up to `limit` runs finished before the cutoff, but a held outcome's run. */
export const pruneRunRecords = (state: MemoryState, finishedBefore: string, limit: number): number => {
  const held = new Set<string>([...state.heldOutcomes.values()].map((outcome) => outcome.runId));
  let pruned = 0;
  for (const runId of state.evidence.keys()) {
    if (pruned >= limit) break;
    const run = state.runs.get(runId);
    if (!run || run.completedAt === null || run.completedAt >= finishedBefore || held.has(runId)) continue;
    state.evidence.delete(runId);
    pruned += 1;
  }
  return pruned;
};
