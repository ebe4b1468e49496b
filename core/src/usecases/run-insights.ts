import * as Clock from "effect/Clock";
import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import { NotFound } from "../errors.js";
import { Storage } from "../ports/storage.js";
import type { RunId } from "../schema/ids.js";
import type { OwnerId } from "../schema/ids.js";
import type { RunTrace } from "../schema/run.js";
import { isRetained, RetentionPolicy, recordRemoved } from "../rules/retention.js";
import { emptyTrace, findRun } from "./runs.js";

const maxArtifacts = 200;

/** Endpoint 15: timing metadata only; nulls while the run has not recorded any. */
export const getTrace = (ownerId: OwnerId, runId: string) =>
  Effect.gen(function* () {
    const run = yield* findRun(ownerId, runId);
    const storage = yield* Storage;
    // A run past retention has no trace any more (its Run stays): the empty one, as before it ran.
    const { days } = yield* RetentionPolicy;
    if (recordRemoved(run, yield* Clock.currentTimeMillis, days)) {
      return { trace: { ...emptyTrace(run), status: run.status } satisfies RunTrace };
    }
    // Only the trace is read: a finished run's facts and artifact bodies are not (decision 0042).
    const stored = yield* storage.getRunTrace(run.id);
    // A run in flight has no evidence yet: its trace so far is kept as progress.
    const trace = Option.isSome(stored)
      ? stored.value
      : Option.getOrElse(yield* storage.getTraceProgress(run.id), () => emptyTrace(run));
    return { trace: { ...trace, status: run.status } satisfies RunTrace };
  });

/** Artifacts past retention are not answered, whether or not the store's prune has removed them yet. */
const retainedNow = Effect.map(Effect.all([Clock.currentTimeMillis, RetentionPolicy]), ([now, { days }]) =>
  isRetained(now, days),
);

/**
 * Endpoint 12: the index never includes bodies, and none is read for it; `recipe` is a research
 * run's pinned recipe (kept with the run, not subject to artifact retention), null for
 * deterministic runs.
 */
export const listArtifacts = (ownerId: OwnerId, runId: string) =>
  Effect.gen(function* () {
    const run = yield* findRun(ownerId, runId);
    const index = yield* (yield* Storage).listRunArtifacts(run.id as RunId);
    const retained = yield* retainedNow;
    const artifacts = Option.match(index, { onNone: () => [], onSome: (i) => i.artifacts }).filter(retained);
    return {
      runId: run.id,
      recipe: Option.match(index, { onNone: () => null, onSome: (i) => i.recipe }),
      truncated: artifacts.length > maxArtifacts,
      artifacts: artifacts.slice(0, maxArtifacts),
    };
  });

/** Endpoint 13: one artifact with its body (null when it exceeded 64 KiB); only its body is read. */
export const getArtifact = (ownerId: OwnerId, runId: string, artifactId: string) =>
  Effect.gen(function* () {
    const run = yield* findRun(ownerId, runId);
    const found = yield* (yield* Storage).getArtifact(run.id as RunId, artifactId);
    const retained = yield* retainedNow;
    if (Option.isNone(found) || !retained(found.value)) {
      return yield* Effect.fail(new NotFound({ resource: "artifact", id: artifactId }));
    }
    return { artifact: found.value };
  });
