import * as Context from "effect/Context";
import type { ExtractedRecord } from "../engine/extract.js";
import type { RowRecord } from "../run-domain.js";
import type { DatasetColumn } from "../schema/column.js";
import type { DriftExample, DriftFinding, DriftReport } from "../schema/drift.js";
import type { Scalar } from "../schema/row.js";

/**
 * When a run that passed its checks still does not look like the dataset (decision 0040). Shares are
 * fractions of the present rows; `fillDrop` is in fraction points (0.5 = 50 percentage points).
 */
export interface DriftThresholds {
  /** The rule applies only to a dataset with at least this many present rows before the run. */
  readonly minPresentRows: number;
  /** Held when the run's records are fewer than this share of the present rows. */
  readonly minRecordShare: number;
  /** Held when at least this share of the present rows would go missing. */
  readonly goneShare: number;
  /** Held when a collected column's fill rate falls by at least this much. */
  readonly fillDrop: number;
}

export const defaultDriftThresholds: DriftThresholds = {
  minPresentRows: 10,
  minRecordShare: 0.5,
  goneShare: 0.5,
  fillDrop: 0.5,
};

export interface DriftInput {
  readonly columns: ReadonlyArray<DatasetColumn>;
  /** The dataset's rows before the run, as the run reconciles against them. */
  readonly current: ReadonlyArray<RowRecord>;
  readonly records: ReadonlyArray<ExtractedRecord>;
}

const examplesMax = 5;
// Rates compared as fractions: a difference computed exactly at a threshold must trip it.
const epsilon = 1e-9;
const percent = (rate: number) => `${Math.round(rate * 100)}%`;
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** The value an owner sees in a cell: a manual value when the cell is overridden (reconcile keeps it). */
const shownValue = (row: RowRecord, fieldId: string): Scalar => row.data[fieldId] ?? null;

/** What the run would write: the first record of each key, as reconciliation takes them. */
const distinctRecords = (records: ReadonlyArray<ExtractedRecord>): ExtractedRecord[] => {
  const first = new Map<string, ExtractedRecord>();
  for (const record of records)
    if (record.rowKey !== null && !first.has(record.rowKey)) first.set(record.rowKey, record);
  return [...first.values()];
};

const notFound = (row: RowRecord): DriftExample => ({
  entity: row.rowKey,
  rowId: row.id,
  url: row.sourceUrl,
  index: null,
  previous: null,
  read: null,
});

/**
 * The drift rule, once for every store and run kind: compares the records a run would write with the
 * dataset's present rows. With at least `minPresentRows` present rows, a finding for each of: fewer
 * records than `minRecordShare` of the rows; at least `goneShare` of the rows not read again; a
 * collected column whose fill rate (non-null among the present rows before, among the records of
 * those rows after; an overridden cell counts with its manual value, which the run keeps) falls by
 * `fillDrop` or more. New items never count toward a fall; user columns are not read by runs and are
 * ignored. Null when the rule does not apply.
 */
export const findDrift = (input: DriftInput, thresholds: DriftThresholds): DriftReport | null => {
  const present = input.current.filter((row) => row.presence === "present");
  if (present.length < thresholds.minPresentRows) return null;
  const records = distinctRecords(input.records);
  const rowsByKey = new Map(present.map((row) => [row.rowKey, row]));
  const keysRead = new Set(records.map((r) => r.rowKey));
  const findings: DriftFinding[] = [];
  const counts = { rowsBefore: present.length, recordsAfter: records.length };
  const missed = present.filter((row) => !keysRead.has(row.rowKey));

  if (records.length < present.length * thresholds.minRecordShare - epsilon) {
    findings.push({
      code: "drift_record_count",
      fieldId: null,
      column: null,
      before: present.length,
      after: records.length,
      ...counts,
      message: `the run read ${plural(records.length, "record")} where the dataset has ${plural(present.length, "row")}`,
      examples: missed.slice(0, examplesMax).map(notFound),
    });
  }
  if (missed.length >= present.length * thresholds.goneShare - epsilon) {
    findings.push({
      code: "drift_gone_rows",
      fieldId: null,
      column: null,
      before: present.length,
      after: present.length - missed.length,
      ...counts,
      message: `${missed.length} of ${plural(present.length, "row")} (${percent(missed.length / present.length)}) would go missing`,
      examples: missed.slice(0, examplesMax).map(notFound),
    });
  }
  // Fill rates compare like with like: the present rows before, and the records of those same rows
  // after. New items (and rows coming back) are left out, so a run that adds unpriced items is not held.
  const matched = records.flatMap((record) => {
    const row = rowsByKey.get(record.rowKey ?? "");
    return row ? [{ record, row }] : [];
  });
  if (matched.length > 0) {
    for (const column of input.columns) {
      if (column.ownership !== "collected") continue;
      const fieldId = column.id as string;
      const filledBefore = present.filter((row) => shownValue(row, fieldId) !== null).length;
      // An overridden cell keeps its manual value whatever the run reads.
      const after = ({ record, row }: (typeof matched)[number]): Scalar =>
        row.overrides[fieldId] ? shownValue(row, fieldId) : (record.cells.get(fieldId)?.value ?? null);
      const filledAfter = matched.filter((pair) => after(pair) !== null).length;
      const rateBefore = filledBefore / present.length;
      const rateAfter = filledAfter / matched.length;
      if (rateBefore - rateAfter < thresholds.fillDrop - epsilon) continue;
      const emptied = matched.filter((pair) => shownValue(pair.row, fieldId) !== null && after(pair) === null);
      findings.push({
        code: "drift_fill_rate",
        fieldId,
        column: column.name,
        before: rateBefore,
        after: rateAfter,
        rowsBefore: present.length,
        recordsAfter: matched.length,
        message: `${column.name} was filled in ${percent(rateAfter)} of ${plural(matched.length, "record")}, ${percent(rateBefore)} before`,
        examples: emptied.slice(0, examplesMax).map(({ record, row }) => ({
          entity: row.rowKey,
          rowId: row.id,
          url: record.pageUrl,
          index: record.index,
          previous: shownValue(row, fieldId),
          read: record.cells.get(fieldId)?.raw ?? null,
        })),
      });
    }
  }
  return { presentRows: present.length, records: records.length, findings, accepted: false };
};

/** A drift report's findings as the run's `error`: one sentence, each tripped rule with its figures. */
export const driftMessage = (report: DriftReport): string =>
  `held: ${report.findings.map((f) => f.message).join("; ")}; the page's layout may have changed. Nothing was ` +
  "written or charged: accept the run if the site really changed, or fix the source and run again.";

/**
 * The drift rule as a host configures it (GLEANER_DRIFT, GLEANER_DRIFT_*): on, with the defaults,
 * unless the host says otherwise. `enabled: false` accepts every run that passes its checks.
 */
export class DriftPolicy extends Context.Reference<DriftPolicy>()("@gleaner/core/DriftPolicy", {
  defaultValue: (): { readonly enabled: boolean; readonly thresholds: DriftThresholds } => ({
    enabled: true,
    thresholds: defaultDriftThresholds,
  }),
}) {}
