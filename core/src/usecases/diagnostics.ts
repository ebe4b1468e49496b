import { Effect, Option, Schema } from "effect";
import { decodeQuery } from "../decode.js";
import { BadRequest } from "../errors.js";
import { Storage } from "../ports/storage.js";
import type { RecordFact, RunEvidence } from "../run-domain.js";
import type { DatasetColumn } from "../schema/column.js";
import type { OwnerId } from "../schema/ids.js";
import { findDataset } from "./datasets.js";
import { replayFacts } from "../engine/research/replay.js";
import { findRun } from "./runs.js";

const Text = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200));
const DiagnosticsQuery = Schema.Struct({
  summary: Schema.optional(Schema.Literal("true", "false")),
  entity: Schema.optional(Text),
  field: Schema.optional(Text),
  /** Extension: `replay` recomputes a research run's facts from its artifacts (no network, no model). */
  basis: Schema.optional(Schema.Literal("recorded", "replay")),
});
type Basis = "recorded" | "replay";

/** The name diagnostics use for a fact: a research entity's anchor, else the row key. */
const nameOf = (f: RecordFact) => f.entity?.anchor ?? f.rowKey;
/** Every name a fact answers to: a research entity's anchor and aliases, or the row key. */
const namesOf = (f: RecordFact): string[] =>
  f.entity ? [...new Set([f.entity.anchor, ...f.entity.aliases])] : f.rowKey === null ? [] : [f.rowKey];

const examplesMax = 5;
const counts = () => ({ present: 0, absent: 0, unknown: 0, ambiguous: 0, recovered: 0 });

/** Run-wide loss groups: missing cells per field, failures by stage and code, duplicate keys. */
const lossSummary = (
  evidence: RunEvidence,
  columns: ReadonlyArray<DatasetColumn>,
  attemptId: string | null,
  basis: Basis,
) => {
  const keys = new Map<string, number>();
  for (const f of evidence.facts) if (f.rowKey !== null) keys.set(f.rowKey, (keys.get(f.rowKey) ?? 0) + 1);
  const duplicated = [...keys].filter(([, n]) => n > 1);
  const unkeyed = evidence.facts.filter((f) => f.rowKey === null).length;
  const missingCells = columns
    .filter((c) => c.ownership === "collected")
    .map((column) => {
      const cells = evidence.facts.map((f) => ({ fact: f, cell: f.cells.find((c) => c.fieldId === column.id) }));
      const missing = cells.filter(({ cell }) => cell?.missingReason);
      const reasons: Record<string, number> = {};
      for (const { cell } of missing) reasons[cell!.missingReason!] = (reasons[cell!.missingReason!] ?? 0) + 1;
      return {
        fieldId: column.id,
        label: column.label,
        observedRows: cells.length,
        missing: missing.length,
        reasons,
        examples: missing.slice(0, examplesMax).map(({ fact, cell }) => ({
          entity: nameOf(fact) ?? `${fact.pageUrl}#${fact.index}`,
          rowId: null,
          reason: cell?.missingReason ?? null,
        })),
      };
    });
  const groups = new Map<string, { stage: string; code: string; detail: string; urls: Array<string | null> }>();
  for (const f of evidence.failures) {
    const key = `${f.stage}:${f.code}`;
    const group = groups.get(key) ?? { stage: f.stage, code: f.code, detail: f.detail, urls: [] };
    group.urls.push(f.url);
    groups.set(key, group);
  }
  return {
    basis,
    attemptId,
    outputComplete: evidence.failures.length === 0,
    totals: {
      present: keys.size,
      absent: 0,
      unknown: unkeyed,
      ambiguous: duplicated.length,
      recovered: 0,
      entities: keys.size,
    },
    entities: evidence.facts.flatMap((f) =>
      f.entity
        ? [
            {
              entity: f.entity.anchor,
              aliases: f.entity.aliases,
              outcome: f.entity.conflicts.length > 0 ? "ambiguous" : "present",
              recovered: false,
              failureCodes: [
                ...new Set(f.cells.flatMap((c) => (c.missingReason === "extraction_failed" ? [c.missingReason] : []))),
              ],
            },
          ]
        : [],
    ),
    failureGroups: [...groups.values()].map((g) => ({
      stage: g.stage,
      code: g.code,
      detail: g.detail,
      counts: { ...counts(), absent: g.urls.length },
      examples: g.urls.slice(0, examplesMax).map((url) => ({ entity: url ?? "", evidenceId: "", url })),
    })),
    duplicates: {
      entities: duplicated.length,
      examples: duplicated.slice(0, examplesMax).map(([entity]) => ({ entity, code: "duplicate_key", evidenceId: "" })),
    },
    missingCells,
    unknowns: unkeyed > 0 ? [`${unkeyed} record(s) had no identity value and cannot be named.`] : [],
  };
};

/** One recorded entity (a rowKey): its facts and cells, nothing inferred. */
const entityDiagnosis = (
  evidence: RunEvidence,
  columns: ReadonlyArray<DatasetColumn>,
  entity: string,
  field: string | undefined,
  attemptId: string | null,
  basis: Basis,
) => {
  const column = field ? columns.find((c) => c.id === field || c.label === field) : undefined;
  const facts: RecordFact[] = evidence.facts.filter((f) => namesOf(f).includes(entity));
  const conflicting = facts.some((f) => (f.entity?.conflicts.length ?? 0) > 0);
  const outcome = facts.length === 0 ? "unknown" : facts.length > 1 || conflicting ? "ambiguous" : "present";
  const cells = facts.flatMap((f) =>
    f.cells
      .filter((c) => !column || c.fieldId === column.id)
      .map((c) => ({
        rowId: null,
        fieldId: c.fieldId,
        value: c.value,
        missingReason: c.missingReason,
        evidenceIds: [`${f.pageUrl}#${f.index}`],
      })),
  );
  return {
    entity,
    basis,
    attemptId,
    matchedNames: [...new Set(facts.flatMap(namesOf))],
    outcome,
    field: column?.id ?? field ?? null,
    entityFacts: facts.map((f) => ({
      stage: "extraction",
      code: "record_read",
      detail: `Read at ${f.pageUrl}, item ${f.index}.`,
      evidenceId: `${f.pageUrl}#${f.index}`,
      failure: f.cells.some((c) => c.missingReason === "extraction_failed"),
    })),
    cells,
    paths: facts.map((f) => ({ url: f.pageUrl, facts: [], unknownStages: [], firstFailure: null })),
    unknowns: facts.length === 0 ? [`No record with key ${JSON.stringify(entity)} was recorded in this run.`] : [],
  };
};

/** For `basis=replay`: a research run's facts recomputed from its artifacts; 400 for other runs. */
const replayIfAsked = (stored: Option.Option<RunEvidence>, basis: Basis) =>
  Effect.gen(function* () {
    if (basis !== "replay") return null;
    const recipe = Option.match(stored, { onNone: () => null, onSome: (e) => e.recipe ?? null });
    if (Option.isNone(stored) || recipe === null) {
      return yield* Effect.fail(
        new BadRequest({
          message: "basis=replay needs a research run with recorded artifacts.",
          details: [{ path: "basis", message: "replay is only possible for research runs" }],
        }),
      );
    }
    return yield* replayFacts(stored.value, recipe);
  });

/** Endpoint 14, for deterministic and research runs. */
export const getDiagnostics = (ownerId: OwnerId, runId: string, query: Record<string, unknown>) =>
  Effect.gen(function* () {
    const q = yield* decodeQuery(DiagnosticsQuery, query);
    if (q.summary === "true" && (q.entity !== undefined || q.field !== undefined)) {
      return yield* Effect.fail(
        new BadRequest({
          message: "summary=true cannot be combined with entity or field.",
          details: [{ path: "summary", message: "cannot be combined with entity or field" }],
        }),
      );
    }
    if (q.field !== undefined && q.entity === undefined) {
      return yield* Effect.fail(
        new BadRequest({ message: "field requires entity.", details: [{ path: "field", message: "requires entity" }] }),
      );
    }
    const run = yield* findRun(ownerId, runId);
    const dataset = yield* findDataset(ownerId, run.datasetId);
    const stored = yield* (yield* Storage).getRunEvidence(run.id);
    const basis: Basis = q.basis ?? "recorded";
    const replayed = yield* replayIfAsked(stored, basis);
    const recorded = Option.map(stored, (e) => (replayed ? { ...e, ...replayed } : e));
    const attemptId = Option.match(recorded, {
      onNone: () => null,
      onSome: (e) => e.trace.steps[0]?.attemptId ?? null,
    });
    const diagnostics: Record<string, unknown> = {
      runId: run.id,
      basis,
      attemptId,
      status: run.status,
      observations: Option.match(recorded, {
        onNone: () => null,
        onSome: (e) => ({ pagesRead: e.artifacts.length, records: e.facts.length, readFailures: e.failures.length }),
      }),
      findings: run.checks
        .filter((c) => !c.passed)
        .map((c) => ({ code: c.checkId.slice(0, 100), message: (c.message ?? "failed").slice(0, 1000) })),
      unknowns: Option.isNone(recorded) ? ["Nothing was recorded for this run yet."] : (replayed?.unknowns ?? []),
    };
    if (Option.isSome(recorded)) {
      if (q.summary === "true")
        diagnostics.summary = lossSummary(recorded.value, dataset.record.columns, attemptId, basis);
      if (q.entity !== undefined) {
        diagnostics.entity = entityDiagnosis(
          recorded.value,
          dataset.record.columns,
          q.entity,
          q.field,
          attemptId,
          basis,
        );
      }
    }
    return { diagnostics };
  });
