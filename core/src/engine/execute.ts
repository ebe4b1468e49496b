import { countRunStarted, runSpanAttributes } from "./metered.js";
import * as Cause from "effect/Cause";
import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import { isStorageUnavailable } from "../errors.js";
import type { DocumentParser } from "../ports/document-parser.js";
import type { Fetcher } from "../ports/fetcher.js";
import type { RunJob } from "../ports/run-queue.js";
import { type ClaimedRun, Storage } from "../ports/storage.js";
import type { RunPlanRecord, RunRecord } from "../run-domain.js";
import { blockingReasons } from "../reading/refusals.js";
import { pagesToCharge } from "../rules/page-identity.js";
import { failedChecksMessage, rowsKeptChangingMessage } from "../rules/run-errors.js";
import { newId } from "../schema/ids.js";
import type { CheckResult } from "../schema/run.js";
import { nowIso } from "../time.js";
import { acceptPhase } from "./accept.js";
import { observePages, parsedPages, runEvidence } from "./evidence.js";
import { emptyPlan, pinnedRecipe, pinPhase, traceOf, validatePhase } from "./phases.js";
import { type ReadOutcome, readSource } from "./read.js";
import { pageReadsToKeep, reusedPages } from "./read.js";
import { executeResearchRun } from "./research/execute.js";
import { TraceRecorder } from "./trace.js";

const nothingRead: ReadOutcome = {
  recipe: "",
  pages: [],
  records: [],
  failures: [],
  coverage: { complete: true },
  bodiesStored: [],
};

/** Finishes a run without writing rows (failed, blocked or held), with what it recorded. */
const finishPhase = Effect.fn("run.finish")(function* (
  run: RunRecord,
  recorder: TraceRecorder,
  ending: {
    readonly status: "failed" | "blocked" | "held";
    readonly checks: ReadonlyArray<CheckResult>;
    readonly error: string;
    readonly read: ReadOutcome | null;
    readonly plan: RunPlanRecord;
  },
) {
  const completedAt = yield* nowIso;
  const { status, checks, error, read, plan } = ending;
  const finished: RunRecord = { ...run, status, checks, error, completedAt };
  const evidence = runEvidence(read ?? nothingRead, run.id, completedAt, traceOf(run, recorder, completedAt), plan);
  const stored = yield* (yield* Storage).finishRun(finished, evidence);
  yield* Effect.logInfo(`run ${status}`).pipe(
    Effect.annotateLogs({ status, error, pagesRead: read?.pages.length ?? 0, creditsCharged: 0 }),
  );
  return stored;
});

/** The ids of existing rows whose keys the run read (diagnostics name them beside lost cells). */
const rowIdsOfKeys = Effect.fn("run.rowIdsOfKeys")(function* (run: RunRecord, read: ReadOutcome) {
  const keys = new Set(read.records.flatMap((r) => (r.rowKey === null ? [] : [r.rowKey])));
  const rows = yield* (yield* Storage).loadRows(run.datasetId);
  return Object.fromEntries(rows.filter((row) => keys.has(row.rowKey)).map((row) => [row.rowKey, row.id as string]));
});

/** pin -> read -> validate -> blocked, failed or the accept loop, for a claimed run. */
const runPhases = Effect.fn("run.phases")(function* (
  run: RunRecord,
  dataset: ClaimedRun["dataset"],
  recorder: TraceRecorder,
) {
  const finish = (ending: Parameters<typeof finishPhase>[2]) => finishPhase(run, recorder, ending);

  const pinned = yield* pinPhase(dataset, recorder);
  if (Option.isNone(pinned)) {
    const error = "The dataset no longer exists.";
    return yield* finish({ status: "failed", checks: [], error, read: null, plan: emptyPlan });
  }
  const { recipe, columns } = pinned.value;
  if (recipe?.source.version !== 1) {
    const error = "The recipe cannot be navigated; create a dataset with an explicit list source.";
    return yield* finish({ status: "held", checks: [], error, read: null, plan: emptyPlan });
  }
  const { source } = recipe;
  const pinnedPlan: RunPlanRecord = { ...emptyPlan, recipe: pinnedRecipe(pinned.value, source) };

  const read = yield* readSource(source, columns, recorder, run.datasetId);
  const outcome = yield* validatePhase(source, columns, read, recorder);
  const checks = outcome.results;
  const reused = reusedPages(read);
  const plan: RunPlanRecord = { ...pinnedPlan, checks: outcome.names, ...(reused.length > 0 ? { reused } : {}) };

  const refused = read.failures.length > 0 && read.failures.every((f) => blockingReasons.has(f.failure.reason));
  if (read.pages.length === 0 && refused) {
    const [first] = read.failures;
    const error = `The site refused every read: ${first?.url} answered ${first?.failure.reason}.`;
    return yield* finish({ status: "blocked", checks, error, read, plan });
  }
  const failed = checks.filter((c) => !c.passed);
  if (failed.length > 0) {
    const error = failedChecksMessage(checks, columns);
    const knownRowIds = yield* rowIdsOfKeys(run, read);
    return yield* finish({ status: "failed", checks, error, read, plan: { ...plan, knownRowIds } });
  }

  const accepted = yield* acceptPhase({
    run,
    schemaVersion: pinned.value.schemaVersion,
    columns,
    records: read.records,
    checks,
    plan,
    pages: pagesToCharge(read.pages.map((p) => p.page.finalUrl)),
    observe: (at) => observePages(parsedPages(read), "deterministic", run, at),
    trace: (at, step) => traceOf(run, recorder, at, step),
    evidence: (at, trace, accepted) => runEvidence(read, run.id, at, trace, accepted),
    pageReads: pageReadsToKeep(read),
    bodiesStored: read.bodiesStored,
  });
  if (accepted !== "exhausted") return accepted;
  return yield* finish({ status: "failed", checks, error: rowsKeptChangingMessage, read, plan });
});

/**
 * Executes one delivery of a run job. Safe to call twice for the same run: the claim and the
 * acceptance are guarded on the run's state, so a retried or duplicated job never applies or
 * charges twice. Each phase is a named span (run.pin, run.read, run.validate, run.accept, ...).
 */
export const executeRun = Effect.fn("run.execute")(function* (job: RunJob, redelivered: boolean) {
  if (job.kind === "research") return yield* executeResearchRun(job, redelivered);
  const storage = yield* Storage;
  const claimed = yield* storage.claimRun(job.runId, yield* nowIso, redelivered);
  if (Option.isNone(claimed)) return;
  const { run, dataset } = claimed.value;
  yield* Effect.logInfo("run started").pipe(
    Effect.annotateLogs({ runId: run.id, datasetId: run.datasetId, redelivered }),
  );
  yield* countRunStarted(run, "deterministic", redelivered);
  yield* Effect.annotateCurrentSpan(runSpanAttributes(run));
  // The trace is published while the run works, so GET /v1/runs/{id}/trace shows its steps so far.
  const recorder: TraceRecorder = new TraceRecorder(newId(), () =>
    storage.saveTraceProgress(run.id, traceOf(run, recorder, null)).pipe(Effect.ignore),
  );
  yield* runPhases(run, dataset, recorder).pipe(
    Effect.annotateLogs({ runId: run.id, datasetId: run.datasetId }),
    Effect.annotateSpans(runSpanAttributes(run)),
    Effect.catchAllCause((cause) =>
      Effect.gen(function* () {
        // The database is away: leave the run as it is; the worker retries the delivery (worker.ts).
        if (Cause.failureOption(cause).pipe(Option.exists(isStorageUnavailable))) return yield* Effect.failCause(cause);
        yield* Effect.logError("run failed unexpectedly", cause);
        const error = "The run stopped on an internal error; nothing was written or charged.";
        yield* finishPhase(run, recorder, { status: "failed", checks: [], error, read: null, plan: emptyPlan });
      }),
    ),
  );
});

export type RunEngineServices = Storage | Fetcher | DocumentParser;
