import { Clock, Effect, Option } from "effect";
import type { DocumentParser } from "../ports/document-parser.js";
import type { Fetcher } from "../ports/fetcher.js";
import type { RunJob } from "../ports/run-queue.js";
import { Storage } from "../ports/storage.js";
import type { RunEvidence, RunRecord } from "../run-domain.js";
import { blockingReasons } from "../reading/refusals.js";
import { newId } from "../schema/ids.js";
import type { CheckResult } from "../schema/run.js";
import { nowIso } from "../time.js";
import { runChecks } from "./checks.js";
import { observePages, runEvidence } from "./evidence.js";
import { type ReadOutcome, readSource } from "./read.js";
import { reconcile } from "./reconcile.js";
import { TraceRecorder } from "./trace.js";

const maxAcceptAttempts = 5;

const traceOf = (run: RunRecord, recorder: TraceRecorder, completedAt: string): RunEvidence["trace"] => {
  const { steps, phases, truncated } = recorder.snapshot();
  const started = run.startedAt ? Date.parse(run.startedAt) : null;
  return {
    runId: run.id,
    datasetId: run.datasetId,
    queueMs: started === null || truncated ? null : Math.max(0, started - Date.parse(run.queuedAt)),
    wallMs: started === null || truncated ? null : Math.max(0, Date.parse(completedAt) - started),
    truncated,
    phases,
    steps,
    discovery: null,
    harnessVersion: null,
  };
};

/**
 * Executes one delivery of a run job: pin -> read -> extract -> validate -> accept. Safe to call
 * twice for the same run: the claim and the acceptance are guarded on the run's state, so a
 * retried or duplicated job never applies or charges twice.
 */
export const executeRun = (job: RunJob, redelivered: boolean) =>
  Effect.gen(function* () {
    const storage = yield* Storage;
    const claimed = yield* storage.claimRun(job.runId, yield* nowIso, redelivered);
    if (Option.isNone(claimed)) return;
    const run = claimed.value;
    const recorder = new TraceRecorder(newId());

    const finish = (
      status: "failed" | "blocked" | "held",
      checks: CheckResult[],
      error: string,
      read: ReadOutcome | null,
    ) =>
      Effect.gen(function* () {
        const completedAt = yield* nowIso;
        const finished: RunRecord = { ...run, status, checks, error, completedAt };
        const empty: ReadOutcome = {
          pages: [],
          records: [],
          failures: [],
          coverage: { complete: false, reason: error },
        };
        const evidence = runEvidence(read ?? empty, run.id, completedAt, traceOf(run, recorder, completedAt));
        return yield* storage.finishRun(finished, evidence);
      });

    const work = Effect.gen(function* () {
      // pin: the recipe version and schema the whole run uses.
      const pinned = yield* recorder.timed("pin", storage.getDataset(run.ownerId, run.datasetId));
      if (Option.isNone(pinned)) return yield* finish("failed", [], "The dataset no longer exists.", null);
      const dataset = pinned.value.record;
      const recipe = dataset.recipes[dataset.recipes.length - 1];
      if (recipe?.source.version !== 1) {
        return yield* finish(
          "held",
          [],
          "The recipe cannot be navigated; create a dataset with an explicit list source.",
          null,
        );
      }
      const { source } = recipe;
      const columns = dataset.columns;

      const read = yield* readSource(source, columns, recorder);
      if (
        read.pages.length === 0 &&
        read.failures.length > 0 &&
        read.failures.every((f) => blockingReasons.has(f.failure.reason))
      ) {
        const [first] = read.failures;
        const checks = runChecks(source, columns, read.records, read.coverage);
        return yield* finish(
          "blocked",
          checks,
          `The site refused every read: ${first?.url} answered ${first?.failure.reason}.`,
          read,
        );
      }

      const checks = yield* recorder.timed(
        "validate",
        Effect.sync(() => runChecks(source, columns, read.records, read.coverage)),
      );
      const failed = checks.filter((c) => !c.passed);
      if (failed.length > 0) {
        const error = failed.map((c) => `${c.checkId}: ${c.message ?? "failed"}`).join(" | ");
        return yield* finish("failed", checks, error, read);
      }

      // accept: recompute against the current rows if an edit slipped in between.
      return yield* Effect.gen(function* () {
        const pages = new Set(read.pages.map((p) => p.page.finalUrl)).size;
        for (let attempt = 1; attempt <= maxAcceptAttempts; attempt++) {
          const completedAt = yield* nowIso;
          const observations = observePages(read, run.datasetId, run.id, completedAt);
          const observationByPage = new Map(observations.map((o) => [o.sourceUrl, o.id]));
          const current = yield* storage.loadRows(run.datasetId);
          const plan = reconcile({
            datasetId: run.datasetId,
            runId: run.id,
            schemaVersion: dataset.schemaVersion,
            columns,
            current,
            records: read.records,
            observationByPage,
            now: completedAt,
          });
          const acceptStarted = yield* Clock.currentTimeMillis;
          recorder.add({
            phase: "accept",
            status: "succeeded",
            startedAt: completedAt,
            durationMs: Math.max(0, Math.round(acceptStarted - Date.parse(completedAt))),
          });
          const evidence = runEvidence(read, run.id, completedAt, traceOf(run, recorder, completedAt));
          const outcome = yield* storage.acceptRun({
            run: {
              ...run,
              status: "succeeded",
              checks,
              rowDeltas: plan.rowDeltas,
              error: null,
              completedAt,
              chargedPages: pages,
            },
            heldRun: {
              ...run,
              status: "held",
              checks,
              error: `Every check passed, but the owner cannot pay for ${pages} page(s); nothing was written.`,
              completedAt,
            },
            rows: plan.rows,
            revisions: plan.revisions,
            observations,
            charge: { ownerId: run.ownerId, pages, entryId: newId() },
            evidence,
          });
          if (outcome._tag !== "RowsChanged") return outcome;
        }
        return yield* finish("failed", checks, "Rows kept changing while the run was accepted; run it again.", read);
      });
    });

    yield* work.pipe(
      Effect.catchAllCause((cause) =>
        Effect.gen(function* () {
          yield* Effect.logError("run failed unexpectedly", cause);
          yield* finish("failed", [], "The run stopped on an internal error; nothing was written or charged.", null);
        }),
      ),
    );
  });

export type RunEngineServices = Storage | Fetcher | DocumentParser;
