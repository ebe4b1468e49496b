import * as Clock from "effect/Clock";
import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import { NotFound } from "../errors.js";
import { Storage } from "../ports/storage.js";
import type { RunId } from "../schema/ids.js";
import type { OwnerId } from "../schema/ids.js";
import type { RunTrace } from "../schema/run.js";
import { isoAt } from "../time.js";
import { emptyTrace, findRun } from "./runs.js";

/** SPEC.md's retention of a run's artifacts (page bodies and boundary records): 30 days. */
export const artifactRetentionMs = 30 * 24 * 60 * 60 * 1000;
const maxArtifacts = 200;

/** Endpoint 15: timing metadata only; nulls while the run has not recorded any. */
export const getTrace = (ownerId: OwnerId, runId: string) =>
  Effect.gen(function* () {
    const run = yield* findRun(ownerId, runId);
    const storage = yield* Storage;
    // Only the trace is read: a finished run's facts and artifact bodies are not (decision 0036).
    const stored = yield* storage.getRunTrace(run.id);
    // A run in flight has no evidence yet: its trace so far is kept as progress.
    const trace = Option.isSome(stored)
      ? stored.value
      : Option.getOrElse(yield* storage.getTraceProgress(run.id), () => emptyTrace(run));
    return { trace: { ...trace, status: run.status } satisfies RunTrace };
  });

/**
 * Whether an artifact is kept at `now` (ms): created within `artifactRetentionMs` before it. The
 * endpoints apply it on every read; a store may drop what it refuses (the memory store does).
 */
export const isRetained = (now: number) => {
  const cutoff = isoAt(now - artifactRetentionMs);
  return (artifact: { readonly createdAt: string }) => artifact.createdAt >= cutoff;
};

/**
 * Endpoint 12: the index never includes bodies, and none is read for it; `recipe` is a research
 * run's pinned recipe (kept with the run, not subject to artifact retention), null for
 * deterministic runs.
 */
export const listArtifacts = (ownerId: OwnerId, runId: string) =>
  Effect.gen(function* () {
    const run = yield* findRun(ownerId, runId);
    const index = yield* (yield* Storage).listRunArtifacts(run.id as RunId);
    const retained = isRetained(yield* Clock.currentTimeMillis);
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
    const retained = isRetained(yield* Clock.currentTimeMillis);
    if (Option.isNone(found) || !retained(found.value)) {
      return yield* Effect.fail(new NotFound({ resource: "artifact", id: artifactId }));
    }
    return { artifact: found.value };
  });
