/**
 * What an integrator's compiler says about the Promise API's inputs and errors, checked by tsc (see
 * promise-api.test.ts): each `@ts-expect-error` must be an error, or tsc fails on the unused directive.
 */
import {
  type Gleaner,
  GleanerError,
  InsufficientCreditsError,
  NotFoundError,
  RunWaitTimeoutError,
  ValidationFailedError,
} from "@gleaner/core";

export const typedInputs = async (gleaner: Gleaner, datasetId: string, runId: string) => {
  await gleaner.rows.list(datasetId, { limit: 10, status: ["new", "changed"], since: "2026-01-01T00:00:00Z" });
  // @ts-expect-error a misspelled option
  await gleaner.rows.list(datasetId, { limt: 10 });
  // @ts-expect-error a status rows never have
  await gleaner.rows.list(datasetId, { status: "deleted" });
  await gleaner.changes.list(datasetId, { after: 0, limit: 100, rowId: "r", fieldId: "f" });
  // @ts-expect-error a misspelled option
  await gleaner.changes.list(datasetId, { aftr: 0 });
  // @ts-expect-error a sequence is a number
  await gleaner.changes.list(datasetId, { after: [1] });
  await gleaner.runs.diagnostics(runId, { summary: "true" });
  // @ts-expect-error summary is "true" or "false"
  await gleaner.runs.diagnostics(runId, { summary: "yes" });
  // @ts-expect-error a misspelled option
  await gleaner.runs.diagnostics(runId, { entitiy: "x" });
  // @ts-expect-error a misspelled option
  await gleaner.datasets.list({ cursr: "x" });
  // @ts-expect-error a misspelled option
  await gleaner.runs.list(datasetId, { limitt: 1 });
};

export const typedErrors = (error: unknown): string => {
  if (error instanceof InsufficientCreditsError) return `${error.code} ${error.balance}/${error.required}`;
  if (error instanceof ValidationFailedError) return error.details.map((d) => d.path).join(",");
  if (error instanceof NotFoundError) {
    const code: "not_found" = error.code;
    return code;
  }
  if (error instanceof RunWaitTimeoutError) return `${error.runId} ${error.lastStatus}`;
  if (error instanceof GleanerError) {
    // @ts-expect-error a code the HTTP API never answers
    if (error.code === "timeout") return "never";
    return error.code;
  }
  return "unknown";
};
