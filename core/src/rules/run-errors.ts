import type { CheckResult } from "../schema/run.js";

/**
 * What a run's `error` says when it did not succeed, worded once for both kinds of run, so an owner
 * (and a test) reads the same sentence whichever engine wrote it.
 */

/**
 * A check as a person reads it: `present:<field id>` is named by its column's label, so no field id
 * reaches a run's error, the console or the CLI; the other checks keep their ids.
 */
export const checkName = (
  checkId: string,
  columns: ReadonlyArray<{ readonly id: string; readonly label: string }> = [],
): string => {
  if (!checkId.startsWith("present:")) return checkId;
  const fieldId = checkId.slice("present:".length);
  return `present: ${columns.find((c) => c.id === fieldId)?.label ?? fieldId}`;
};

/** A check in words, passed or not: its name, then its message when it has one. */
export const checkLine = (
  check: Pick<CheckResult, "checkId" | "message">,
  columns: ReadonlyArray<{ readonly id: string; readonly label: string }> = [],
): string => `${checkName(check.checkId, columns)}${check.message ? `: ${check.message}` : ""}`;

/** One failed check in words: its name and its message. */
export const failedCheckLine = (
  check: Pick<CheckResult, "checkId" | "message">,
  columns: ReadonlyArray<{ readonly id: string; readonly label: string }> = [],
): string => `${checkName(check.checkId, columns)}: ${check.message ?? "failed"}`;

/** A run failed by its checks: every failed check, in check order, columns named by their labels. */
export const failedChecksMessage = (
  checks: ReadonlyArray<CheckResult>,
  columns: ReadonlyArray<{ readonly id: string; readonly label: string }> = [],
): string =>
  checks
    .filter((c) => !c.passed)
    .map((c) => failedCheckLine(c, columns))
    .join(" | ");

/** A run whose acceptance kept finding its rows changed under it (every retry used). */
export const rowsKeptChangingMessage = "Rows kept changing while the run was accepted; run it again.";
