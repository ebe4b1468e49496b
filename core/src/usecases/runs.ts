import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import * as Schema from "effect/Schema";
import { InsufficientCredits, NotFound, ResearchUnavailable, ValidationError } from "../errors.js";
import { Credits } from "../ports/credits.js";
import { LanguageModel } from "../ports/language-model.js";
import { RunQueue } from "../ports/run-queue.js";
import { Storage } from "../ports/storage.js";
import { runSpanAttributes } from "../engine/metered.js";
import { type RunRecord, toRun } from "../run-domain.js";
import { type DatasetId, newId, type OwnerId, type RunId } from "../schema/ids.js";
import type { CreateRunRequest } from "../schema/requests-runs.js";
import type { RunKind } from "../schema/research.js";
import { nowIso } from "../time.js";
import { findDataset } from "./find-dataset.js";
import { QueryInt } from "../schema/query.js";
import { checkRunLimits } from "./owner-limits.js";

/** The API view of a stored run (the one rule is in run-domain.ts). */
export { toRun };

/**
 * Endpoint 10: stores a queued run, then enqueues its job. Needs a balance of at least 1 (the
 * charge itself happens only at acceptance). When the queue refuses the job, the stored run is
 * finished as failed so that nothing stays queued forever, and the caller gets 503.
 * `request` is the optional CreateRunRequest (`{"kind":"research"}` asks for a research run,
 * `{"acceptDrift":true}` accepts the run despite drift, decision 0040).
 */
export const createRun = (
  ownerId: OwnerId,
  datasetId: string,
  request?: CreateRunRequest,
  trigger: RunRecord["trigger"] = "manual",
) =>
  Effect.gen(function* () {
    // No request (or an empty one) keeps the deterministic run of SPEC.md.
    const kind: RunKind = request?.kind ?? "deterministic";
    const acceptDrift = request?.acceptDrift === true;
    const dataset = yield* findDataset(ownerId, datasetId);
    if (kind === "research") {
      if (dataset.record.question === null) {
        return yield* Effect.fail(
          new ValidationError({
            message: "A research run answers the dataset's question; this dataset has none.",
            details: [{ path: "/question", message: "is required for a research run; set it with PATCH" }],
          }),
        );
      }
      if (Option.isNone(yield* Effect.serviceOption(LanguageModel))) {
        return yield* Effect.fail(
          new ResearchUnavailable({
            message: "Research runs need a language model; none is configured.",
            details: [{ path: "GLEANER_MODEL_URL", message: "is not set: point it at an OpenAI-compatible server" }],
          }),
        );
      }
    }
    const balance = yield* (yield* Credits).balance(ownerId);
    if (balance < 1) return yield* Effect.fail(new InsufficientCredits({ balance, required: 1 }));
    yield* checkRunLimits(ownerId);
    const storage = yield* Storage;
    const run: RunRecord = {
      id: newId<RunId>(),
      datasetId: dataset.record.id,
      ownerId,
      status: "queued",
      trigger,
      checks: [],
      rowDeltas: { new: 0, changed: 0, gone: 0 },
      error: null,
      queuedAt: yield* nowIso,
      startedAt: null,
      completedAt: null,
      attempts: 0,
      chargedPages: null,
      ...(acceptDrift ? { acceptDrift } : {}),
    };
    yield* storage.insertRun(run);
    // The request's span names the run it queued: the run's own trace starts when a worker takes it.
    yield* Effect.annotateCurrentSpan(runSpanAttributes(run, kind));
    yield* (yield* RunQueue)
      .enqueue({ runId: run.id, datasetId: run.datasetId, ownerId, ...(kind === "research" ? { kind } : {}) })
      .pipe(
        Effect.tapError((error) =>
          Effect.gen(function* () {
            const now = yield* nowIso;
            const claimed = Option.map(yield* storage.claimRun(run.id, now, false), ({ run }) => run);
            if (Option.isSome(claimed)) {
              yield* storage.finishRun(
                {
                  ...claimed.value,
                  status: "failed",
                  error: `The queue refused the run: ${error.message}`,
                  completedAt: now,
                },
                { trace: emptyTrace(claimed.value), artifacts: [], facts: [], failures: [] },
              );
            }
          }),
        ),
      );
    yield* Effect.logInfo("run queued").pipe(
      Effect.annotateLogs({ runId: run.id, datasetId: run.datasetId, ownerId, trigger, kind }),
    );
    return { runId: run.id, creditsRemaining: balance };
  });

export const emptyTrace = (run: RunRecord) => ({
  runId: run.id,
  datasetId: run.datasetId,
  queueMs: null,
  wallMs: null,
  truncated: false,
  phases: [],
  steps: [],
  discovery: null,
  harnessVersion: null,
});

export const RunListQuery = Schema.Struct({
  limit: Schema.optionalWith(QueryInt(1, 100), { default: () => 20 }),
});

/** Endpoint 9: the dataset's runs, newest first. */
export const listRuns = (ownerId: OwnerId, datasetId: string, { limit }: typeof RunListQuery.Type) =>
  Effect.gen(function* () {
    const dataset = yield* findDataset(ownerId, datasetId);
    const runs = yield* (yield* Storage).listRuns(dataset.record.id as DatasetId, limit);
    return { data: runs.map(toRun) };
  });

/** A run of the owner, or NotFound. */
export const findRun = (ownerId: OwnerId, runId: string) =>
  Effect.gen(function* () {
    const run = yield* (yield* Storage).getRun(ownerId, runId as RunId);
    if (Option.isNone(run)) return yield* Effect.fail(new NotFound({ resource: "run", id: runId }));
    return run.value;
  });

/** Endpoint 11. */
export const getRun = (ownerId: OwnerId, runId: string) => Effect.map(findRun(ownerId, runId), toRun);
