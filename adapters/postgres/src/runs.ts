import type { RunEvidence, RunRecord, RunStorage } from "@gleaner/core";
import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import { acceptRun } from "./accept.js";
import { heldOutcomeOf } from "./held-outcomes.js";
import { prefixedDatasetColumns, toPrefixedDatasetRecord } from "./datasets.js";
import { acceptedReads } from "./page-reads.js";
import { allDecoded, conflictsOn, type Db, firstDecoded, isUuid, runInProgress, type Sql } from "./db.js";
import { runTable, sendRun, toRun } from "./records.js";
import {
  type ArtifactRow,
  artifactColumns,
  artifactEntryColumns,
  type EvidenceRow,
  toArtifact,
  toArtifactEntry,
  toEvidence,
  toRecipe,
  toTrace,
  writeEvidence,
} from "./evidence.js";
import { writeOutbox } from "./webhooks.js";

const writeRun = (tx: Sql, run: RunRecord) => Effect.flatten(sendRun(tx, run));

export const makeRunMethods = (db: Db): Omit<RunStorage, "pruneRunRecords" | "queuedRuns"> => ({
  // The partial unique index runs_one_active_per_dataset is the guard: no read-then-insert race.
  insertRun: (run) => {
    const batch = runTable.batch([run], "$1");
    return db
      .query(`insert into runs (${runTable.list}) ${batch.select}`, [batch.value])
      .pipe(Effect.asVoid, conflictsOn({ runs_one_active_per_dataset: runInProgress }));
  },

  getRun: (ownerId, runId) =>
    !isUuid(ownerId) || !isUuid(runId)
      ? Effect.succeed(Option.none())
      : db
          .query(`select * from runs where id = $1 and owner_id = $2`, [runId, ownerId])
          .pipe(Effect.flatMap(firstDecoded(toRun))),

  listRuns: (datasetId, limit) =>
    !isUuid(datasetId)
      ? Effect.succeed([])
      : db
          .query(`select * from runs where dataset_id = $1 order by queued_at desc, id desc limit $2`, [
            datasetId,
            limit,
          ])
          .pipe(Effect.flatMap(allDecoded(toRun))),

  // One conditional UPDATE: two workers claiming the same queued run cannot both get it. The run's
  // dataset comes in the same statement (the owner's, by primary key), for the run to pin.
  claimRun: (runId, startedAt, reclaimRunning) =>
    !isUuid(runId)
      ? Effect.succeed(Option.none())
      : db
          .query(
            `with claimed as (
               update runs set status = 'running', started_at = $2, attempts = attempts + 1
                where id = $1 and (status = 'queued' or (status = 'running' and $3::boolean))
                returning *)
             select c.*, ${prefixedDatasetColumns("d")}
               from claimed c left join datasets d on d.id = c.dataset_id and d.owner_id = c.owner_id`,
            [runId, startedAt, reclaimRunning],
          )
          .pipe(
            Effect.flatMap(
              // The dataset is decoded when the run pins it (ClaimedRun): a claim never fails on it.
              firstDecoded((row) => Effect.map(toRun(row), (run) => ({ run, dataset: toPrefixedDatasetRecord(row) }))),
            ),
          ),

  finishRun: (run, evidence) =>
    db.transaction((tx) =>
      Effect.gen(function* () {
        const [current] = yield* tx.query("select * from runs where id = $1 for update", [run.id]);
        if (!current) return run;
        if (current.status !== "running") return yield* toRun(current);
        yield* writeRun(tx, run);
        yield* writeEvidence(tx, run.id, evidence);
        yield* writeOutbox(tx, run, null);
        return run;
      }),
    ),

  acceptRun: (acceptance) => acceptRun(db, acceptance),

  heldOutcome: (datasetId) => (!isUuid(datasetId) ? Effect.succeed(Option.none()) : heldOutcomeOf(db, datasetId)),

  // runs_owner_recent (migration 0002) serves both run counts; datasets_owner_newest the other.
  ownerActivity: (ownerId, since) =>
    !isUuid(ownerId)
      ? Effect.succeed({ datasets: 0, activeRuns: 0, runsSince: 0, oldestRunSince: null })
      : db
          .query<{ datasets: number; active: number; recent: number; oldest: Date | null }>(
            `select (select count(*)::int from datasets where owner_id = $1) as datasets,
                    count(*) filter (where status in ('queued', 'running'))::int as active,
                    count(*) filter (where queued_at >= $2)::int as recent,
                    min(queued_at) filter (where queued_at >= $2) as oldest
               from runs where owner_id = $1 and (status in ('queued', 'running') or queued_at >= $2)`,
            [ownerId, since],
          )
          .pipe(
            Effect.map(([row]) => ({
              datasets: row?.datasets ?? 0,
              activeRuns: row?.active ?? 0,
              runsSince: row?.recent ?? 0,
              oldestRunSince: row?.oldest ? row.oldest.toISOString() : null,
            })),
          ),

  getRunEvidence: (runId) =>
    !isUuid(runId)
      ? Effect.succeed(Option.none())
      : Effect.gen(function* () {
          const [row] = yield* db.query<EvidenceRow>(
            "select trace, facts, failures, plan, recipe from run_evidence where run_id = $1",
            [runId],
          );
          if (!row) return Option.none();
          const evidence = yield* toEvidence(runId, row);
          const artifacts = yield* db.query<ArtifactRow>(
            `select ${artifactColumns} from run_artifacts a where a.run_id = $1 order by a.position`,
            [runId],
          );
          return Option.some<RunEvidence>({ ...evidence, artifacts: yield* allDecoded(toArtifact)(artifacts) });
        }),

  getRunTrace: (runId) =>
    !isUuid(runId)
      ? Effect.succeed(Option.none())
      : db
          .query<{ trace: unknown }>("select trace from run_evidence where run_id = $1", [runId])
          .pipe(Effect.flatMap(firstDecoded((row) => toTrace(runId, row.trace)))),

  // One statement: each artifact without its body (none: one row of nulls; no evidence: no row), the
  // evidence's recipe on the first row only (pg would parse its JSON once per row).
  listRunArtifacts: (runId) =>
    !isUuid(runId)
      ? Effect.succeed(Option.none())
      : Effect.gen(function* () {
          const rows = yield* db.query<{ recipe: unknown } & { [K in keyof ArtifactRow]: ArtifactRow[K] | null }>(
            `select case when row_number() over (order by a.position) = 1 then e.recipe end as recipe,
                    ${artifactEntryColumns}
               from run_evidence e left join run_artifacts a on a.run_id = e.run_id
              where e.run_id = $1 order by a.position`,
            [runId],
          );
          const [first] = rows;
          if (!first) return Option.none();
          const listed = rows.filter((row): row is typeof row & Omit<ArtifactRow, "body"> => row.id !== null);
          return Option.some({
            recipe: yield* toRecipe(runId, first.recipe),
            artifacts: yield* Effect.forEach(listed, toArtifactEntry),
          });
        }),

  saveTraceProgress: (runId, trace) =>
    db
      .query(
        `insert into run_trace_progress (run_id, trace, updated_at)
         select $1, $2, now() from runs where id = $1 and status = 'running'
         on conflict (run_id) do update set trace = excluded.trace, updated_at = now()`,
        [runId, JSON.stringify(trace)],
      )
      .pipe(Effect.asVoid),

  getTraceProgress: (runId) =>
    !isUuid(runId)
      ? Effect.succeed(Option.none())
      : db
          .query<{ trace: unknown }>(
            `select p.trace from run_trace_progress p join runs r on r.id = p.run_id
             where p.run_id = $1 and r.status = 'running'`,
            [runId],
          )
          .pipe(Effect.flatMap(firstDecoded((row) => toTrace(runId, row.trace)))),

  acceptedReads: (datasetId) => acceptedReads(db, datasetId),

  getArtifact: (runId, artifactId) =>
    !isUuid(runId)
      ? Effect.succeed(Option.none())
      : db
          .query<ArtifactRow>(
            `select ${artifactColumns} from run_artifacts a where a.run_id = $1 and a.id = $2 order by a.position limit 1`,
            [runId, artifactId],
          )
          .pipe(Effect.flatMap(firstDecoded(toArtifact))),
});
