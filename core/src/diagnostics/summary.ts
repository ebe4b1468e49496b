import type { DiagnosticBasis } from "../schema/diagnostics.js";
import { cellsArea, duplicatesOf } from "./areas.js";
import { entityLevelFacts, recordFacts } from "./entity-facts.js";
import { examplesMax, limitUnknowns, type Outcome, type Stage } from "./model.js";
import type { EntityView, RunIndex } from "./run-index.js";

type Counts = Record<Outcome | "recovered", number>;
const zero = (): Counts => ({ present: 0, absent: 0, unknown: 0, ambiguous: 0, recovered: 0 });

interface Group {
  readonly stage: Stage;
  readonly code: string;
  readonly detail: string;
  readonly counts: Counts;
  readonly counted: Set<string>;
  readonly examples: Array<{ entity: string; evidenceId: string; url: string | null }>;
}

/**
 * The failing facts of an entity with the page each was recorded on. A value refused at validation is
 * one of the run's recorded failures, grouped below once with its page: here it only names a failure code.
 */
const failuresOf = (index: RunIndex, entity: EntityView) => [
  ...entity.records.flatMap((view) =>
    recordFacts(index, view, null)
      .filter((f) => f.failure)
      .map((f) => ({ fact: f, url: view.fact.pageUrl as string | null, grouped: true })),
  ),
  ...entityLevelFacts(index, entity).map((f) => ({ fact: f, url: null, grouped: f.stage !== "validation" })),
];

/**
 * Run-wide loss groups (summary=true). Totals count the entities listed, by outcome; a failure
 * group counts each entity it holds once. Losses that name no entity (a page not read, a record
 * without identity) form groups with zero counts: their examples carry the evidence, `entity` "".
 */
export const lossSummary = (
  index: RunIndex,
  attemptId: string | null,
  unknowns: ReadonlyArray<string>,
  basis: typeof DiagnosticBasis.Type = "recorded",
) => {
  const groups = new Map<string, Group>();
  const groupOf = (stage: Stage, code: string, detail: string) => {
    const key = `${stage}\u0000${code}`;
    const group = groups.get(key) ?? { stage, code, detail, counts: zero(), counted: new Set(), examples: [] };
    groups.set(key, group);
    return group;
  };
  const totals = { ...zero(), entities: 0 };
  const entities = [...index.entities.values()].map((entity) => {
    const failures = failuresOf(index, entity);
    for (const { fact, url, grouped } of failures) {
      if (!grouped) continue;
      const group = groupOf(fact.stage, fact.code, fact.detail);
      if (group.counted.has(entity.rowKey)) continue;
      group.counted.add(entity.rowKey);
      group.counts[entity.outcome]++;
      if (entity.recovered) group.counts.recovered++;
      if (group.examples.length < examplesMax)
        group.examples.push({ entity: entity.entity, evidenceId: fact.evidenceId, url });
    }
    totals[entity.outcome]++;
    if (entity.recovered) totals.recovered++;
    totals.entities++;
    return {
      entity: entity.entity,
      aliases: entity.aliases,
      outcome: entity.outcome,
      recovered: entity.recovered,
      failureCodes: [...new Set(failures.map((f) => f.fact.code))],
    };
  });
  for (const f of index.recording.evidence?.failures ?? []) {
    // A read that failed loses the page; a research value refused at validation loses one cell.
    const group =
      f.stage === "retrieval"
        ? groupOf("retrieval", f.code, `${f.detail} The entities on this page are unknown.`)
        : groupOf("validation", f.code, "A value the model gave was refused; the cell is extraction_failed.");
    // A refused value is about one entity: counted once per group by that entity's outcome.
    const entity =
      f.entity === undefined ? undefined : [...index.entities.values()].find((e) => e.names.includes(f.entity!));
    if (entity && !group.counted.has(entity.rowKey)) {
      group.counted.add(entity.rowKey);
      group.counts[entity.outcome]++;
      if (entity.recovered) group.counts.recovered++;
    }
    if (group.examples.length < examplesMax)
      group.examples.push({
        entity: f.entity ?? "",
        evidenceId: f.stepId ?? index.pageEvidenceOf(f.url ?? "") ?? "",
        url: f.url,
      });
  }
  for (const view of index.unkeyed) {
    const group = groupOf("extraction", "identity_missing", "The record has no identity value and cannot be named.");
    if (group.examples.length < examplesMax)
      group.examples.push({ entity: "", evidenceId: view.evidenceId, url: view.fact.pageUrl });
  }
  return {
    basis,
    attemptId,
    outputComplete: index.recording.run.status === "succeeded",
    totals,
    entities,
    failureGroups: [...groups.values()].map(({ counted: _counted, ...group }) => group),
    duplicates: duplicatesOf(index),
    missingCells: cellsArea(index).map(({ examples, ...cells }) => ({
      ...cells,
      examples: examples.map(({ entity, rowId, reason }) => ({ entity, rowId, reason })),
    })),
    unknowns: limitUnknowns(unknowns),
  };
};
