import type { DatasetColumn } from "../schema/column.js";
import type { DiagnosticBasis } from "../schema/diagnostics.js";
import { entityLevelFacts, firstFailure, recordFacts, unknownStagesOf } from "./entity-facts.js";
import { type EntityFact, limitUnknowns, type Outcome, stages } from "./model.js";
import type { EntityView, RunIndex } from "./run-index.js";

/** A Field id or exact label, among the dataset's columns (undefined when it is neither). */
export const resolveField = (columns: ReadonlyArray<DatasetColumn>, field: string) =>
  columns.find((c) => c.id === field) ?? columns.find((c) => c.label === field);

/** Entities the name matches exactly: their rowKey first, else one of their names (identity values, aliases). */
const matching = (index: RunIndex, name: string): EntityView[] => {
  const exact = index.entities.get(name);
  if (exact) return [exact];
  return [...index.entities.values()].filter((e) => e.names.includes(name));
};

const notRecorded = (index: RunIndex, name: string) => {
  const failures = index.notRead;
  const unknowns = [`No entity named ${JSON.stringify(name)} was recorded in this run.`];
  for (const f of failures)
    unknowns.push(`${f.url} was not read (${f.code}): whether ${JSON.stringify(name)} is there is unknown.`);
  // A page not read is a path the entity may have taken: retrieval failed, later stages unknown.
  const paths = failures.map((f) => {
    const facts: EntityFact[] = [
      { stage: "retrieval", code: f.code, detail: f.detail, evidenceId: f.stepId ?? "", failure: true },
    ];
    return { url: f.url ?? "", facts, unknownStages: unknownStagesOf(facts), firstFailure: facts[0] ?? null };
  });
  return { paths, unknowns };
};

/** entity=<name>: every recorded fact about the entity, per page path, with its cells. */
export const entityDiagnosis = (
  index: RunIndex,
  name: string,
  field: DatasetColumn | undefined,
  attemptId: string | null,
  basis: typeof DiagnosticBasis.Type = "recorded",
) => {
  const matched = matching(index, name);
  const fieldId = (field?.id as string | undefined) ?? null;
  const outcome: Outcome =
    matched.length === 0 ? "unknown" : matched.length > 1 ? "ambiguous" : (matched[0]?.outcome ?? "unknown");
  const paths = matched.flatMap((entity) =>
    [...new Set(entity.records.map((r) => r.fact.pageUrl))].map((url) => {
      const facts = entity.records.filter((r) => r.fact.pageUrl === url).flatMap((r) => recordFacts(index, r, fieldId));
      return { url, facts, unknownStages: unknownStagesOf(facts), firstFailure: firstFailure(facts) };
    }),
  );
  const levelFacts = matched.flatMap((entity) => entityLevelFacts(index, entity, fieldId));
  const cells = matched.flatMap((entity) =>
    entity.records.flatMap((view) =>
      view.fact.cells
        .filter((c) => fieldId === null || c.fieldId === fieldId)
        .map((c) => ({
          rowId: index.rowIdOf(entity.rowKey),
          fieldId: c.fieldId,
          value: c.value,
          missingReason: c.missingReason,
          evidenceIds: [view.evidenceId],
        })),
    ),
  );
  const entityFacts = [...paths.flatMap((p) => p.facts), ...levelFacts];
  const missing = matched.length === 0 ? notRecorded(index, name) : { paths: [], unknowns: [] };
  const seen = new Set(entityFacts.map((f) => f.stage));
  return {
    entity: name,
    basis,
    attemptId,
    matchedNames: [...new Set(matched.flatMap((e) => e.names))],
    outcome,
    field: fieldId,
    entityFacts,
    cells,
    paths: [...paths, ...missing.paths],
    unknownStages: matched.length === 0 ? [...stages] : stages.filter((s) => !seen.has(s)),
    unknowns: limitUnknowns(missing.unknowns),
  };
};
