import type { DatasetColumn } from "../../schema/column.js";
import type { Source } from "../../schema/source.js";
import { type CheckOutcome, type Coverage, runChecks } from "../checks.js";
import type { ExtractedRecord } from "../extract.js";

/**
 * The checks of a research run: the deterministic ones over the merged entities, except that
 * `extraction` reports refused model values instead of failing on them. A refused value is never
 * written (its cell is missing, `extraction_failed`), so the rows that are written are all grounded.
 */
export const researchChecks = (
  source: Source,
  columns: ReadonlyArray<DatasetColumn>,
  records: ReadonlyArray<ExtractedRecord>,
  coverage: Coverage,
  refused: number,
): CheckOutcome => {
  const outcome = runChecks(source, columns, records, coverage);
  return {
    results: outcome.results.map((check) =>
      check.checkId === "extraction"
        ? {
            checkId: "extraction",
            passed: true,
            message:
              refused === 0
                ? "Every value written is quoted from its page and converts to its column's type."
                : `Every value written is quoted from its page; ${refused} model value(s) were refused (quote not on the page or not convertible) and left missing.`,
          }
        : check,
    ),
    // extraction passes here, so it names no record.
    names: outcome.names.filter((n) => n.checkId !== "extraction"),
  };
};
