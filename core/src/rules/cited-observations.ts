import type { ObservationId } from "../schema/ids.js";
import type { CellOverrides, EvidenceRef, FieldEvidence, SourceObservation } from "../schema/row.js";

/** Every observation cited by the evidence, and by the source snapshots kept under overrides. */
export const citedObservations = (
  items: ReadonlyArray<{ readonly evidence: FieldEvidence; readonly overrides: CellOverrides }>,
): ObservationId[] => {
  const ids = new Set<ObservationId>();
  for (const { evidence, overrides } of items) {
    for (const refs of Object.values(evidence)) for (const ref of refs) ids.add(ref.observationId);
    for (const override of Object.values(overrides)) for (const ref of override.evidence) ids.add(ref.observationId);
  }
  return [...ids];
};

/**
 * The observations an acceptance must store: those its rows and revisions cite, each with only the
 * entries they cite. Observations are only ever read through a citation (a row's or a revision's
 * evidence), and a row a run saw unchanged keeps citing the observation its values were read from, so
 * an unchanged re-run stores none and a run that changed a few records of a page stores those records'
 * entries, not the page again (decision 0042).
 */
export const observationsToStore = (
  observations: ReadonlyArray<SourceObservation>,
  written: ReadonlyArray<{ readonly evidence: FieldEvidence; readonly overrides: CellOverrides }>,
): SourceObservation[] => {
  const cited = new Map<ObservationId, Set<string>>(observations.map((o) => [o.id, new Set<string>()]));
  // A created row's revision shares the row's evidence object: each object is looked at once.
  const looked = new Set<object>();
  const cite = (refs: ReadonlyArray<EvidenceRef>) => {
    for (const ref of refs) cited.get(ref.observationId)?.add(ref.entryId);
  };
  for (const { evidence, overrides } of written) {
    if (!looked.has(evidence)) {
      looked.add(evidence);
      for (const refs of Object.values(evidence)) cite(refs);
    }
    if (!looked.has(overrides)) {
      looked.add(overrides);
      for (const override of Object.values(overrides)) cite(override.evidence);
    }
  }
  return observations.flatMap((observation) => {
    const entries = cited.get(observation.id);
    if (!entries || entries.size === 0) return [];
    if (entries.size === observation.entries.length) return [observation];
    return [{ ...observation, entries: observation.entries.filter((entry) => entries.has(entry.id)) }];
  });
};
