import type { ObservationId } from "../schema/ids.js";
import type { CellOverrides, FieldEvidence, SourceObservation } from "../schema/row.js";

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
 * The observations an acceptance must store: those its rows and revisions cite. Observations are only
 * ever read through a citation (a row's or a revision's evidence), and a row a run saw unchanged keeps
 * citing the observation its values were read from, so an unchanged re-run stores none (decision 0042).
 */
export const observationsToStore = (
  observations: ReadonlyArray<SourceObservation>,
  written: ReadonlyArray<{ readonly evidence: FieldEvidence; readonly overrides: CellOverrides }>,
): SourceObservation[] => {
  const wanted = new Set(observations.map((o) => o.id));
  const cited = new Set<ObservationId>();
  // A created row's revision shares the row's evidence object: each object is looked at once. And
  // the search ends as soon as every observation of the run is cited (a first run cites them all).
  const looked = new Set<object>();
  const cite = (refs: ReadonlyArray<{ readonly observationId: ObservationId }>) => {
    for (const ref of refs) if (wanted.has(ref.observationId)) cited.add(ref.observationId);
  };
  for (const { evidence, overrides } of written) {
    if (cited.size === wanted.size) break;
    if (!looked.has(evidence)) {
      looked.add(evidence);
      for (const refs of Object.values(evidence)) cite(refs);
    }
    if (!looked.has(overrides)) {
      looked.add(overrides);
      for (const override of Object.values(overrides)) cite(override.evidence);
    }
  }
  return observations.filter((o) => cited.has(o.id));
};
