import type { CheckResult } from "../schema/run.js";

/**
 * What a run's `error` says when it did not succeed, worded once for both kinds of run, so an owner
 * (and a test) reads the same sentence whichever engine wrote it.
 */

/** One failed check in words: its id and its message. */
export const failedCheckLine = (check: Pick<CheckResult, "checkId" | "message">): string =>
  `${check.checkId}: ${check.message ?? "failed"}`;

/** A run failed by its checks: every failed check, in check order. */
export const failedChecksMessage = (checks: ReadonlyArray<CheckResult>): string =>
  checks
    .filter((c) => !c.passed)
    .map(failedCheckLine)
    .join(" | ");

/** A run whose acceptance kept finding its rows changed under it (every retry used). */
export const rowsKeptChangingMessage = "Rows kept changing while the run was accepted; run it again.";
