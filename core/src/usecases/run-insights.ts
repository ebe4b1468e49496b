import * as Clock from "effect/Clock";
import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import { NotFound } from "../errors.js";
import { Storage } from "../ports/storage.js";
import type { RunArtifact } from "../run-domain.js";
import type { RunId } from "../schema/ids.js";
import type { OwnerId } from "../schema/ids.js";
import type { RunTrace } from "../schema/run.js";
import { isoAt } from "../time.js";
import { emptyTrace, findRun } from "./runs.js";

const retentionMs = 30 * 24 * 60 * 60 * 1000;
const maxArtifacts = 200;

/** Endpoint 15: timing metadata only; nulls while the run has not recorded any. */
export const getTrace = (ownerId: OwnerId, runId: string) =>
  Effect.gen(function* () {
    const run = yield* findRun(ownerId, runId);
    const storage = yield* Storage;
    const evidence = yield* storage.getRunEvidence(run.id);
    // A run in flight has no evidence yet: its trace so far is kept as progress.
    const progress = Option.isNone(evidence) ? yield* storage.getTraceProgress(run.id) : Option.none();
    const trace = Option.match(evidence, {
      onNone: () => Option.getOrElse(progress, () => emptyTrace(run)),
      onSome: (e) => e.trace,
    });
    return { trace: { ...trace, status: run.status } satisfies RunTrace };
  });

const retained = (ownerId: OwnerId, runId: string) =>
  Effect.gen(function* () {
    const run = yield* findRun(ownerId, runId);
    const evidence = yield* (yield* Storage).getRunEvidence(run.id as RunId);
    const cutoff = isoAt((yield* Clock.currentTimeMillis) - retentionMs);
    const artifacts = Option.match(evidence, { onNone: () => [], onSome: (e) => e.artifacts }).filter(
      (a) => a.createdAt >= cutoff,
    );
    const recipe = Option.match(evidence, { onNone: () => null, onSome: (e) => e.recipe ?? null });
    return { run, artifacts, recipe };
  });

const indexEntry = ({ body: _body, ...rest }: RunArtifact) => rest;

/**
 * Endpoint 12: the index never includes bodies; `recipe` is a research run's pinned recipe (kept
 * with the run, not subject to artifact retention), null for deterministic runs.
 */
export const listArtifacts = (ownerId: OwnerId, runId: string) =>
  Effect.map(retained(ownerId, runId), ({ run, artifacts, recipe }) => ({
    runId: run.id,
    recipe,
    truncated: artifacts.length > maxArtifacts,
    artifacts: artifacts.slice(0, maxArtifacts).map(indexEntry),
  }));

/** Endpoint 13: one artifact with its body (null when it exceeded 64 KiB). */
export const getArtifact = (ownerId: OwnerId, runId: string, artifactId: string) =>
  Effect.gen(function* () {
    const { artifacts } = yield* retained(ownerId, runId);
    const artifact = artifacts.find((a) => a.id === artifactId);
    if (!artifact) return yield* Effect.fail(new NotFound({ resource: "artifact", id: artifactId }));
    return { artifact };
  });
