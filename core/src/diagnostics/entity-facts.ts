import { conflictRule } from "../engine/research/merge.js";
import { refusalIsAbout } from "../engine/research/validate.js";
import { type EntityFact, type Stage, stages } from "./model.js";
import type { EntityView, RecordView, RunIndex } from "./run-index.js";

const fact = (stage: Stage, code: string, detail: string, evidenceId: string, failure = false): EntityFact => ({
  stage,
  code,
  detail,
  evidenceId,
  failure,
});

/** Missing reasons that lose a value; `not_applicable` says the value does not exist, not that it was lost. */
const losses = new Set(["unknown", "not_found", "extraction_failed"]);

const labelOf = (index: RunIndex, fieldId: string) =>
  index.recording.columns.find((c) => c.id === fieldId)?.label ?? fieldId;

/** Stage by stage, what was recorded about one record; `fieldId` keeps only that field's cell facts. */
export const recordFacts = (index: RunIndex, view: RecordView, fieldId: string | null): EntityFact[] => {
  const { fact: record } = view;
  const recipe = index.plan?.recipe ?? null;
  const status = index.recording.run.status;
  const rowKey = record.rowKey;
  const rowId = rowKey === null ? null : index.rowIdOf(rowKey);
  const facts: EntityFact[] = [];
  const research = record.entity !== undefined;
  if (research) {
    // A research entity: its page was a search result or a declared page, and the model named it there.
    const searched = index.recording.evidence?.recipe?.searchEngine ?? null;
    const how = searched ? `was a search result (${searched})` : "is one of the dataset's declared pages";
    facts.push(fact("discovery", "page_found", `${record.pageUrl} ${how}.`, view.pageEvidenceId));
    facts.push(fact("retrieval", "page_read", `${record.pageUrl} was read and its text cleaned.`, view.pageEvidenceId));
    facts.push(
      fact(
        "selection",
        "entity_named",
        `The model named ${record.entity!.anchor} on this page, and the name is on the page.`,
        view.evidenceId,
      ),
    );
  } else {
    const reachedBy =
      recipe === null
        ? "was read by the run"
        : recipe.url === record.pageUrl
          ? "is the request URL"
          : `was reached by ${recipe.pagination} pagination from ${recipe.url}`;
    facts.push(fact("discovery", "page_reached", `${record.pageUrl} ${reachedBy}.`, view.pageEvidenceId));
    facts.push(fact("retrieval", "page_read", `${record.pageUrl} was read and kept.`, view.pageEvidenceId));
    facts.push(
      fact(
        "selection",
        "item_selected",
        `Item ${record.index} of the page matched the item selector${recipe ? ` ${recipe.itemSelector}` : ""}.`,
        view.evidenceId,
      ),
    );
  }
  // A research value refused at validation on any page of the entity (its own page's first): why, on the cell's fact.
  const refusedWhy = (fieldId: string) => {
    const names = record.entity?.aliases ?? [];
    const pages = record.entity?.pages ?? [record.pageUrl];
    const refused = (index.recording.evidence?.failures ?? []).filter(
      (f) =>
        f.stage === "validation" &&
        f.entity !== undefined &&
        names.includes(f.entity) &&
        f.url !== null &&
        pages.includes(f.url) &&
        refusalIsAbout(f, { id: fieldId }),
    );
    return (refused.find((f) => f.url === record.pageUrl) ?? refused[0])?.code;
  };
  facts.push(fact("extraction", "record_read", `Read at ${record.pageUrl}, item ${record.index}.`, view.evidenceId));
  for (const cell of record.cells) {
    if (cell.missingReason === null || (fieldId !== null && cell.fieldId !== fieldId)) continue;
    const raw = cell.raw === null ? "nothing was found" : `the text read was ${JSON.stringify(cell.raw.slice(0, 200))}`;
    const refusal = research ? refusedWhy(cell.fieldId) : undefined;
    const detail = `${labelOf(index, cell.fieldId)} has no value (${cell.missingReason}): ${raw}${refusal ? `; the value was refused (${refusal})` : ""}.`;
    facts.push(
      fact("extraction", `cell_${cell.missingReason}`, detail, view.evidenceId, losses.has(cell.missingReason)),
    );
  }
  if (rowKey === null) {
    facts.push(fact("extraction", "identity_missing", "The record has no identity value.", view.evidenceId, true));
  }

  const named = index.checksNaming.get(`${record.pageUrl}#${record.index}`) ?? [];
  for (const checkId of named) {
    const message = index.recording.run.checks.find((c) => c.checkId === checkId)?.message ?? "failed";
    facts.push(fact("validation", `check:${checkId}`, message, view.evidenceId, true));
  }
  if (named.length === 0 && index.recording.run.checks.length > 0) {
    const failed = index.recording.run.checks.filter((c) => !c.passed).map((c) => c.checkId);
    const detail =
      failed.length === 0 ? "Every check passed." : `No check named this record; the run failed ${failed.join(", ")}.`;
    facts.push(fact("validation", "record_valid", detail, view.evidenceId));
  }

  const reconciliation = index.plan?.reconciliation ?? null;
  const rowEvidence = rowId ?? view.evidenceId;
  if (rowKey !== null && reconciliation !== null) {
    const first = index.entities.get(rowKey)?.records[0] === view;
    if (!first) {
      facts.push(fact("reconciliation", "duplicate_key", `The key ${rowKey} was read before.`, view.evidenceId, true));
    } else if (index.keys.returned.has(rowKey)) {
      facts.push(fact("reconciliation", "row_returned", "The row was missing and is seen again.", rowEvidence));
    } else if (index.keys.created.has(rowKey)) {
      facts.push(fact("reconciliation", "row_new", "No row had this key: a new row.", rowEvidence));
    } else if (index.keys.changed.has(rowKey)) {
      facts.push(fact("reconciliation", "row_changed", "The row's source values changed.", rowEvidence));
    } else {
      facts.push(fact("reconciliation", "row_unchanged", "The row's source values are the same.", rowEvidence));
    }
  }
  if (status === "succeeded")
    facts.push(fact("output", "written", "The run's output was accepted whole.", rowEvidence));
  else if (status === "failed" || status === "held" || status === "blocked") {
    const detail = `Not written: the run is ${status}${index.recording.run.error ? ` (${index.recording.run.error})` : ""}.`;
    facts.push(fact("output", `not_written_${status}`, detail.slice(0, 1000), rowEvidence, true));
  }
  return facts;
};

/**
 * Pages that disagreed on a cell of a research entity: each value with its page and quote, and which
 * one was written by the rule (merge.ts `conflictRule`). Recorded before `choices` were kept: the values.
 */
const conflictFacts = (index: RunIndex, entity: EntityView, fieldId: string | null): EntityFact[] =>
  entity.records.flatMap((view) =>
    (view.fact.entity?.conflicts ?? [])
      .filter((c) => fieldId === null || c.fieldId === fieldId)
      .flatMap((conflict) => {
        const label = labelOf(index, conflict.fieldId);
        if (!conflict.choices) {
          return [
            fact(
              "reconciliation",
              "value_conflict",
              `${label}: pages gave ${conflict.values.join(", ")}.`,
              view.evidenceId,
            ),
          ];
        }
        return conflict.choices.map((choice) =>
          fact(
            "reconciliation",
            "value_conflict",
            `${label}: ${choice.pageUrl} gave ${JSON.stringify(choice.value)}` +
              `${choice.quote ? ` ("${choice.quote.slice(0, 200)}")` : ""}; ` +
              (choice.written ? `written, because ${conflictRule}.` : `not written, because ${conflictRule}.`),
            index.pageEvidenceOf(choice.pageUrl) ?? view.evidenceId,
          ),
        );
      }),
  );

/**
 * Values of a research entity refused at validation, on any page that named it: the page, what the
 * model answered and why it was not kept (a cell may still hold a value another page supported).
 */
const refusedValues = (index: RunIndex, entity: EntityView, fieldId: string | null): EntityFact[] => {
  if (!entity.records.some((r) => r.fact.entity)) return [];
  return (index.recording.evidence?.failures ?? [])
    .filter(
      (f) =>
        f.stage === "validation" &&
        f.entity !== undefined &&
        entity.names.includes(f.entity) &&
        f.url !== null &&
        (fieldId === null || refusalIsAbout(f, { id: fieldId })),
    )
    .map((f) => {
      const column = index.recording.columns.find((c) => refusalIsAbout(f, c));
      const detail = `${column ? `${column.label}: ` : ""}${f.url}: ${f.detail}`;
      const url = f.url as string;
      return fact("validation", f.code, detail.slice(0, 1000), index.pageEvidenceOf(url) ?? url);
    });
};

/** Facts about an entity that belong to no page: pages that disagreed, or it was not seen on a source read whole. */
export const entityLevelFacts = (index: RunIndex, entity: EntityView, fieldId: string | null = null): EntityFact[] => {
  const conflicts = [...conflictFacts(index, entity, fieldId), ...refusedValues(index, entity, fieldId)];
  if (!entity.gone) return conflicts;
  const rowId = index.rowIdOf(entity.rowKey) ?? entity.rowKey;
  return [
    ...conflicts,
    fact(
      "reconciliation",
      "not_seen",
      "Every page of the source was read and no record had this key: the row went missing.",
      rowId,
      true,
    ),
  ];
};

/** The first failing fact, in stage order. */
export const firstFailure = (facts: ReadonlyArray<EntityFact>): EntityFact | null => {
  for (const stage of stages) {
    const found = facts.find((f) => f.stage === stage && f.failure);
    if (found) return found;
  }
  return null;
};

export const unknownStagesOf = (facts: ReadonlyArray<EntityFact>) =>
  stages.filter((stage) => !facts.some((f) => f.stage === stage));
