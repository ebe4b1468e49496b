import * as Clock from "effect/Clock";
import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import * as Schema from "effect/Schema";
import { BadRequest } from "../errors.js";
import { Storage } from "../ports/storage.js";
import { RetentionPolicy, recordRemoved, removedRecordMessage } from "../rules/retention.js";
import type { OwnerId } from "../schema/ids.js";
import { findDataset } from "../usecases/find-dataset.js";
import { findRun } from "../usecases/runs.js";
import { replayFacts } from "../engine/research/replay.js";
import { diagnoseRun } from "./diagnose.js";
import { resolveField } from "./entity.js";

const Text = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200));
export const DiagnosticsQuery = Schema.Struct({
  summary: Schema.optional(Schema.Literal("true", "false")),
  entity: Schema.optional(Text),
  field: Schema.optional(Text),
  basis: Schema.optional(
    Schema.Literal("recorded", "replay").annotations({
      description:
        "`recorded` (the default): what the run stored. `replay`: a research run's validation and merging " +
        "recomputed from its recorded artifacts (no network, no model); 400 for runs without a research recipe.",
    }),
  ),
});

const refuse = (path: string, message: string) =>
  Effect.fail(new BadRequest({ message: `${path} ${message}.`, details: [{ path: `/${path}`, message }] }));

/** Endpoint 14: loads what the run recorded and hands it to the pure diagnoseRun. */
export const getDiagnostics = Effect.fn("diagnostics.get")(function* (
  ownerId: OwnerId,
  runId: string,
  q: typeof DiagnosticsQuery.Type,
) {
  if (q.summary === "true" && (q.entity !== undefined || q.field !== undefined)) {
    return yield* refuse("summary", "cannot be combined with entity or field");
  }
  if (q.field !== undefined && q.entity === undefined) return yield* refuse("field", "requires entity");
  const run = yield* findRun(ownerId, runId);
  const dataset = yield* findDataset(ownerId, run.datasetId);
  // A record past retention is gone by design, whether or not the prune has come by yet: say so,
  // rather than that nothing was recorded.
  const { days } = yield* RetentionPolicy;
  const removed = recordRemoved(run, yield* Clock.currentTimeMillis, days);
  const stored = removed ? null : Option.getOrNull(yield* (yield* Storage).getRunEvidence(run.id));
  const basis = q.basis ?? "recorded";
  const recipe = stored?.recipe ?? null;
  if (basis === "replay" && (stored === null || recipe === null)) {
    return yield* refuse("basis", "replay is only possible for research runs with recorded artifacts");
  }
  // basis=replay: the facts and failures recomputed from the artifacts stand in for the recorded ones.
  const replayed = basis === "replay" && stored !== null && recipe !== null ? yield* replayFacts(stored, recipe) : null;
  const evidence = stored && replayed ? { ...stored, facts: replayed.facts, failures: replayed.failures } : stored;
  // The columns of the schema the run pinned, when recorded; the current ones otherwise.
  const pinnedVersion = evidence?.plan?.recipe?.schemaVersion;
  const columns = dataset.record.schemas.find((s) => s.version === pinnedVersion)?.fields ?? dataset.record.columns;
  const field = q.field === undefined ? undefined : resolveField(columns, q.field);
  if (q.field !== undefined && field === undefined) {
    return yield* refuse("field", `is not a Field id or exact label of this run's columns: ${JSON.stringify(q.field)}`);
  }
  const diagnostics = diagnoseRun(
    { run, columns, evidence },
    {
      summary: q.summary === "true",
      basis,
      ...(replayed ? { replayUnknowns: replayed.unknowns } : {}),
      ...(removed ? { recordRemoved: removedRecordMessage(days) } : {}),
      ...(q.entity !== undefined ? { entity: q.entity } : {}),
      ...(field ? { field } : {}),
    },
  );
  return { diagnostics };
});
