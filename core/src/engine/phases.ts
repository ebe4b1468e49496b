import * as Clock from "effect/Clock";
import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import type { RecipeVersion } from "../domain.js";
import type { ClaimedRun } from "../ports/storage.js";
import type { PinnedRecipe, RunEvidence, RunPlanRecord, RunRecord } from "../run-domain.js";
import type { DatasetColumn } from "../schema/column.js";
import type { Source } from "../schema/source.js";
import { type CheckOutcome, runChecks } from "./checks.js";
import type { ReadOutcome } from "./read.js";
import type { TraceRecorder } from "./trace.js";
import { isoAt } from "../time.js";

/** Kept for the phase modules; the one rule is core/src/time.ts. */
export const iso = isoAt;

/** The trace as stored: timing metadata of the steps so far, plus an optional final step. */
export const traceOf = (
  run: RunRecord,
  recorder: TraceRecorder,
  completedAt: string | null,
  last?: Parameters<TraceRecorder["snapshot"]>[0],
): RunEvidence["trace"] => {
  const { steps, phases, truncated } = recorder.snapshot(last);
  const started = run.startedAt ? Date.parse(run.startedAt) : null;
  return {
    runId: run.id,
    datasetId: run.datasetId,
    queueMs: started === null || truncated ? null : Math.max(0, started - Date.parse(run.queuedAt)),
    wallMs:
      started === null || truncated || completedAt === null ? null : Math.max(0, Date.parse(completedAt) - started),
    truncated,
    phases,
    steps,
    discovery: null,
    harnessVersion: null,
  };
};

/** What the run pinned: the dataset's schema and its newest recipe version. */
export interface Pinned {
  readonly columns: ReadonlyArray<DatasetColumn>;
  readonly schemaVersion: number;
  readonly recipe: RecipeVersion | undefined;
}

/** The recipe facts diagnostics show under "request and plan". */
export const pinnedRecipe = (pinned: Pinned, source: Source): PinnedRecipe => {
  const identity = source.identity.kind === "source-key" ? [source.identity.field] : source.identity.fields;
  const idByName = new Map(pinned.columns.map((c) => [c.name, c.id as string]));
  return {
    recipeVersion: pinned.recipe?.version ?? 0,
    schemaVersion: pinned.schemaVersion,
    url: source.url,
    pagination: source.pagination.kind,
    itemSelector: source.itemSelector,
    maxPages: source.maxPages,
    maxItems: source.maxItems,
    minimumItems: source.minimumItems,
    render: source.render,
    proxy: source.proxy,
    ignoreRobots: source.ignoreRobots,
    identityFieldIds: identity.flatMap((name) => idByName.get(name) ?? []),
  };
};

export const emptyPlan: RunPlanRecord = { recipe: null, checks: [], reconciliation: null, pagesToCharge: null };

/**
 * pin: the recipe version and schema the whole run uses, from the dataset its claim read (none when
 * the dataset was deleted). Still a step of the trace, though the read is the claim's (decision 0042).
 */
export const pinPhase = Effect.fn("run.pin")(function* (dataset: ClaimedRun["dataset"], recorder: TraceRecorder) {
  const found = yield* recorder.timed("pin", dataset);
  return Option.map(
    found,
    (record): Pinned => ({
      columns: record.columns,
      schemaVersion: record.schemaVersion,
      recipe: record.recipes[record.recipes.length - 1],
    }),
  );
});

/** validate: the checks, run once on every path that read anything (blocked, failed or accepted). */
export const validatePhase = Effect.fn("run.validate")(function* (
  source: Source,
  columns: ReadonlyArray<DatasetColumn>,
  read: ReadOutcome,
  recorder: TraceRecorder,
) {
  return yield* recorder.timed(
    "validate",
    Effect.sync((): CheckOutcome => runChecks(source, columns, read.records, read.coverage)),
  );
});

export const now = Effect.map(Clock.currentTimeMillis, iso);
