import type { CheckNames } from "../run-domain.js";
import type { DatasetColumn } from "../schema/column.js";
import type { CheckResult } from "../schema/run.js";
import type { Source } from "../schema/source.js";
import type { ExtractedRecord } from "./extract.js";

/** How reading ended: complete, or why not (shown as the coverage check's message). */
export type Coverage = { readonly complete: true } | { readonly complete: false; readonly reason: string };

const where = (r: ExtractedRecord) => `${r.pageUrl} item ${r.index}`;
const listed = (problems: string[]): string =>
  problems.length <= 3 ? problems.join("; ") : `${problems.slice(0, 3).join("; ")}; and ${problems.length - 3} more`;

/** The checks' results and, per check, every record that made it fail (its message lists three). */
export interface CheckOutcome {
  readonly results: ReadonlyArray<CheckResult>;
  readonly names: ReadonlyArray<CheckNames>;
}

const named = (checkId: string, records: ReadonlyArray<ExtractedRecord>): CheckNames => ({
  checkId,
  records: records.map((r) => ({ rowKey: r.rowKey, pageUrl: r.pageUrl, index: r.index })),
});

/**
 * The checks of a run, in a fixed order (definitions in docs/decisions/0005-run-engine.md):
 * coverage, identity, extraction, minimum-items, then present:<field-id> per required field.
 */
export const runChecks = (
  source: Source,
  columns: ReadonlyArray<DatasetColumn>,
  records: ReadonlyArray<ExtractedRecord>,
  coverage: Coverage,
): CheckOutcome => {
  const checks: CheckResult[] = [];
  const names: CheckNames[] = [];
  checks.push(
    coverage.complete
      ? { checkId: "coverage", passed: true, message: "Every page of the pagination was read." }
      : { checkId: "coverage", passed: false, message: coverage.reason },
  );

  const unkeyedRecords = records.filter((r) => r.rowKey === null);
  const unkeyed = unkeyedRecords.map((r) => `no identity value at ${where(r)}`);
  const seen = new Map<string, ExtractedRecord>();
  const duplicates: string[] = [];
  const repeated: ExtractedRecord[] = [];
  for (const r of records) {
    if (r.rowKey === null) continue;
    const first = seen.get(r.rowKey);
    if (first) {
      duplicates.push(`key ${JSON.stringify(r.rowKey)} at ${where(r)} repeats ${where(first)}`);
      repeated.push(r);
    } else seen.set(r.rowKey, r);
  }
  names.push(named("identity", [...unkeyedRecords, ...repeated]));
  const identityProblems = [...unkeyed, ...duplicates];
  checks.push(
    identityProblems.length === 0
      ? { checkId: "identity", passed: true, message: `${records.length} records, each with a unique key.` }
      : { checkId: "identity", passed: false, message: listed(identityProblems) },
  );

  const nameById = new Map(columns.map((c) => [c.id as string, c.name]));
  const failedCells: string[] = [];
  const failedRecords = new Set<ExtractedRecord>();
  for (const r of records) {
    // forEach: a Map's for…of allocates a pair per cell until V8 optimises the loop.
    r.cells.forEach((cell, fieldId) => {
      if (cell.missingReason === "extraction_failed") {
        failedCells.push(`${nameById.get(fieldId)} ${JSON.stringify(cell.raw)} is not a valid value at ${where(r)}`);
        failedRecords.add(r);
      }
    });
  }
  names.push(named("extraction", [...failedRecords]));
  checks.push(
    failedCells.length === 0
      ? { checkId: "extraction", passed: true, message: "Every value read converts to its column's type." }
      : { checkId: "extraction", passed: false, message: listed(failedCells) },
  );

  checks.push({
    checkId: "minimum-items",
    passed: records.length >= source.minimumItems,
    message: `${records.length} records found; at least ${source.minimumItems} required.`,
  });

  for (const field of source.fields.filter((f) => f.required)) {
    const column = columns.find((c) => c.name === field.name);
    if (!column) continue;
    const missingRecords = records.filter((r) => r.cells.get(column.id)?.value === null);
    names.push(named(`present:${column.id}`, missingRecords));
    const missing = missingRecords.map(where);
    checks.push(
      missing.length === 0
        ? { checkId: `present:${column.id}`, passed: true, message: `${field.name} is present in every record.` }
        : { checkId: `present:${column.id}`, passed: false, message: `${field.name} is missing at ${listed(missing)}` },
    );
  }
  return { results: checks, names: names.filter((n) => n.records.length > 0) };
};
