import * as Effect from "effect/Effect";
import type { AcceptedRow, NewRevision, ReconciliationRecord, RowRecord } from "../run-domain.js";
import type { DatasetColumn } from "../schema/column.js";
import { type DatasetId, newId, type ObservationId, type RevisionId, type RowId, type RunId } from "../schema/ids.js";
import type { CellOverrides, FieldEvidence, MissingReasons, RowData } from "../schema/row.js";
import type { RowDeltas } from "../schema/run.js";
import type { ExtractedRecord } from "./extract.js";

export interface Reconciliation {
  readonly rows: ReadonlyArray<AcceptedRow>;
  readonly revisions: ReadonlyArray<NewRevision>;
  readonly rowDeltas: RowDeltas;
  /** What diagnostics show of the plan: counts, row ids, gone and returned keys, overrides kept. */
  readonly record: ReconciliationRecord;
}

export interface ReconcileInput {
  readonly datasetId: DatasetId;
  readonly runId: RunId;
  readonly schemaVersion: number;
  readonly columns: ReadonlyArray<DatasetColumn>;
  readonly current: ReadonlyArray<RowRecord>;
  readonly records: ReadonlyArray<ExtractedRecord>;
  /** The observation id of each page, by page URL. */
  readonly observationByPage: ReadonlyMap<string, ObservationId>;
  readonly now: string;
}

const same = (a: unknown, b: unknown) => a === b;

/** What the source says about one record: values, evidence and missing reasons of collected cells. */
const sourceView = (
  record: ExtractedRecord,
  observationId: ObservationId,
  observationByPage: ReadonlyMap<string, ObservationId>,
) => {
  const values: Record<string, RowData[string]> = {};
  const evidence: Record<string, FieldEvidence[string]> = {};
  const missing: Record<string, MissingReasons[string]> = {};
  // Cells read from the record's own entry share one (read-only) citation: a row, and every revision
  // kept in memory, then holds one per record rather than one per cell.
  const recordEntry: FieldEvidence[string] = [{ observationId, entryId: record.entryId }];
  record.cells.forEach((cell, fieldId) => {
    values[fieldId] = cell.value;
    const quoted = record.cellSources?.get(fieldId);
    evidence[fieldId] = quoted
      ? [{ observationId: observationByPage.get(quoted.pageUrl) ?? observationId, entryId: quoted.entryId }]
      : recordEntry;
    if (cell.missingReason) missing[fieldId] = cell.missingReason;
  });
  return { values, evidence, missing };
};

/**
 * The fields of `record` whose value or missing reason differs from the row's (for an overridden
 * cell, from its manual value), read from the record's cells without building the source's view.
 * Each overridden field the record has is noted in `overridesKept`, changed or not.
 */
const changedFields = (
  existing: RowRecord,
  record: ExtractedRecord,
  rowKey: string,
  overridesKept: Array<{ rowKey: string; fieldId: string }>,
): string[] => {
  const changed: string[] = [];
  // forEach, not for…of: iterating a Map's entries allocates a pair per cell until V8 optimises
  // the loop, and a re-run does this for every cell of every row.
  record.cells.forEach((cell, fieldId) => {
    const value = cell.value ?? null;
    const reason = cell.missingReason || undefined;
    const override = existing.overrides[fieldId];
    if (override) {
      overridesKept.push({ rowKey, fieldId });
      if (!same(override.value, value) || override.missingReason !== reason) changed.push(fieldId);
    } else if (!same(existing.data[fieldId], value) || existing.missingReasons[fieldId] !== reason) {
      changed.push(fieldId);
    }
  });
  return changed;
};

/**
 * Reconciles a run's records with the current rows (rules in docs/decisions/0005-run-engine.md):
 * new keys create rows, changed source values update them, rows not seen go missing, missing rows
 * seen again return. Overridden cells keep the manual value; the run refreshes their snapshot.
 */
export const reconcile = (input: ReconcileInput): Reconciliation => {
  const byKey = new Map(input.current.map((r) => [r.rowKey, r]));
  const seen = new Set<string>();
  const rows: AcceptedRow[] = [];
  const revisions: NewRevision[] = [];
  const deltas = { new: 0, changed: 0, gone: 0 };
  const rowIds: Record<string, string> = {};
  const created: string[] = [];
  const goneKeys: string[] = [];
  const returnedKeys: string[] = [];
  const changedKeys: string[] = [];
  const overridesKept: Array<{ rowKey: string; fieldId: string }> = [];
  let unchanged = 0;
  const userColumns = input.columns.filter((c) => c.ownership === "user");

  const revise = (
    row: RowRecord,
    previous: RowRecord | null,
    kind: NewRevision["kind"],
    changedFieldIds: string[],
  ): RowRecord => {
    const id = newId<RevisionId>();
    revisions.push({
      id,
      datasetId: input.datasetId,
      rowId: row.id,
      schemaVersion: input.schemaVersion,
      previousRevisionId: previous?.revisionId ?? null,
      runId: input.runId,
      actorId: null,
      requestId: null,
      requestHash: null,
      origin: "collection",
      kind,
      changedFieldIds: changedFieldIds as unknown as NewRevision["changedFieldIds"],
      data: row.data,
      evidence: row.evidence,
      overrides: row.overrides,
      missingReasons: row.missingReasons,
      presence: row.presence,
      createdAt: input.now,
      before: previous?.data ?? null,
      beforeOverrides: previous?.overrides ?? null,
    });
    return { ...row, revisionId: id, updatedAt: input.now };
  };

  for (const record of input.records) {
    if (record.rowKey === null || seen.has(record.rowKey)) continue;
    seen.add(record.rowKey);
    const observationId = input.observationByPage.get(record.pageUrl) as ObservationId;
    const identity = record.identity ? { identity: record.identity } : {};
    const existing = byKey.get(record.rowKey);

    if (!existing) {
      const view = sourceView(record, observationId, input.observationByPage);
      const data: Record<string, RowData[string]> = { ...view.values };
      for (const c of userColumns) data[c.id] = null;
      const row: RowRecord = {
        id: newId<RowId>(),
        datasetId: input.datasetId,
        rowKey: record.rowKey,
        ...identity,
        data,
        evidence: view.evidence,
        overrides: {},
        missingReasons: view.missing,
        presence: "present",
        status: "new",
        firstSeenRunId: input.runId,
        lastSeenRunId: input.runId,
        sourceUrl: record.pageUrl,
        observedAt: input.now,
        updatedAt: input.now,
        revisionId: null,
      };
      rows.push({ row: revise(row, null, "created", Object.keys(view.values)), expectedRevisionId: "absent" });
      rowIds[record.rowKey] = row.id;
      created.push(record.rowKey);
      deltas.new++;
      continue;
    }

    rowIds[record.rowKey] = existing.id;
    const returned = existing.presence === "missing";
    const changed = changedFields(existing, record, record.rowKey, overridesKept);
    if (!returned && changed.length === 0) {
      unchanged++;
      if (existing.status === "unchanged" && existing.lastSeenRunId === input.runId) continue;
      // Seen and the same: no revision; the row's current state notes the run quietly. Its values,
      // missing reasons, evidence and override snapshots stay as they are (the values are the same,
      // so their evidence keeps citing the observation they were read from): unless the item moved
      // page or identity, only the seen-markers change. Built as one object: an unchanged re-run
      // does this for every row, and nothing else of the source's view is needed.
      const row: RowRecord = {
        ...existing,
        ...identity,
        presence: "present",
        lastSeenRunId: input.runId,
        sourceUrl: record.pageUrl,
        observedAt: input.now,
        status: "unchanged",
      };
      const seenOnly =
        row.sourceUrl === existing.sourceUrl &&
        (row.identity === existing.identity ||
          JSON.stringify(row.identity ?? null) === JSON.stringify(existing.identity ?? null));
      rows.push({ row, expectedRevisionId: existing.revisionId, seenOnly });
      continue;
    }

    const view = sourceView(record, observationId, input.observationByPage);
    const data: Record<string, RowData[string]> = { ...existing.data };
    const overrides: CellOverrides = { ...existing.overrides };
    const missing: Record<string, MissingReasons[string]> = { ...existing.missingReasons };
    for (const fieldId of Object.keys(view.values)) {
      const value = view.values[fieldId] ?? null;
      const reason = view.missing[fieldId];
      if (existing.overrides[fieldId]) {
        (overrides as Record<string, unknown>)[fieldId] = {
          value,
          evidence: view.evidence[fieldId] ?? [],
          ...(reason ? { missingReason: reason } : {}),
        };
        continue;
      }
      data[fieldId] = value;
      if (reason) missing[fieldId] = reason;
      else delete missing[fieldId];
    }
    if (returned) returnedKeys.push(record.rowKey);
    const row = revise(
      {
        ...existing,
        ...identity,
        data,
        overrides,
        missingReasons: missing,
        evidence: {
          ...existing.evidence,
          ...Object.fromEntries(Object.entries(view.evidence).filter(([id]) => !existing.overrides[id])),
        },
        presence: "present",
        lastSeenRunId: input.runId,
        sourceUrl: record.pageUrl,
        observedAt: input.now,
        status: "changed",
      },
      existing,
      returned ? "returned" : "updated",
      changed,
    );
    rows.push({ row, expectedRevisionId: existing.revisionId });
    changedKeys.push(record.rowKey);
    deltas.changed++;
  }

  for (const existing of input.current) {
    if (seen.has(existing.rowKey)) continue;
    if (existing.presence === "missing") {
      // Already gone in an earlier run: still not seen, but not a new loss of this run.
      if (existing.status !== "gone")
        rows.push({ row: { ...existing, status: "gone" }, expectedRevisionId: existing.revisionId });
      continue;
    }
    const row = revise({ ...existing, presence: "missing", status: "gone" }, existing, "missing", []);
    rows.push({ row, expectedRevisionId: existing.revisionId });
    rowIds[existing.rowKey] = existing.id;
    goneKeys.push(existing.rowKey);
    deltas.gone++;
  }
  return {
    rows,
    revisions,
    rowDeltas: deltas,
    // In ReconciliationRecord's key order: a stored plan then decodes as it is (storedDecoder).
    record: {
      new: deltas.new,
      changed: deltas.changed,
      unchanged,
      gone: deltas.gone,
      rowIds,
      created,
      goneKeys,
      changedKeys,
      returnedKeys,
      overridesKept,
    },
  };
};

/** The reconcile phase as a named span of the run. */
export const reconcilePhase = Effect.fn("run.reconcile")(function* (input: ReconcileInput) {
  return yield* Effect.sync(() => reconcile(input));
});
