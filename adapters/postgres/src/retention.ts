import type { RunStorage } from "@gleaner/core";
import * as Effect from "effect/Effect";
import type { Db } from "./db.js";

/**
 * Storage.pruneRunRecords: the runs' evidence and artifacts go in one transaction (rows skipped by
 * another process's prune are left to it), then, in a second, the page bodies no one holds any more.
 */
export const makePruneRunRecords = (db: Db): Pick<RunStorage, "pruneRunRecords" | "queuedRuns"> => ({
  // Storage.queuedRuns: the runs waiting for a worker, and when the oldest was queued.
  queuedRuns: () =>
    Effect.map(
      db.query<{ n: number; oldest: Date | null }>(
        "select count(*)::int as n, min(queued_at) as oldest from runs where status = 'queued'",
      ),
      ([row]) => ({ count: row?.n ?? 0, oldestQueuedAt: row?.oldest ? row.oldest.toISOString() : null }),
    ),
  pruneRunRecords: (finishedBefore, limit) =>
    Effect.tap(
      db.transaction((tx) =>
        Effect.map(
          tx.query<{ n: number }>(
            `with due as (
               select r.id from runs r
               where r.completed_at < $1
                 and exists (select 1 from run_evidence e where e.run_id = r.id)
                 and not exists (select 1 from held_outcomes h where h.run_id = r.id)
               order by r.completed_at
               limit $2
               for update of r skip locked
             ), artifacts as (delete from run_artifacts where run_id in (select id from due)),
             progress as (delete from run_trace_progress where run_id in (select id from due)),
             evidence as (delete from run_evidence where run_id in (select id from due) returning run_id)
             select count(*)::int as n from evidence`,
            [finishedBefore, limit],
          ),
          ([gone]) => gone?.n ?? 0,
        ),
      ),
      // Once a pass (core calls until fewer than `limit` go), whatever it removed: bodies a failed
      // pass or a deletion left go too.
      (removed) => (removed < limit ? pruneBodies(db) : Effect.void),
    ),
});

/**
 * Deletes the page bodies that neither an artifact nor a kept page read holds any more. An
 * acceptance that finds its body stored (ON CONFLICT DO NOTHING) takes no lock on it, so the table
 * lock (which every insert into page_bodies conflicts with) waits for acceptances in flight to
 * commit, and the delete's snapshot, taken after it, sees the artifacts and reads they wrote. The
 * lock is waited for a second at most (acceptances queue behind the wait): a busy moment leaves the
 * bodies to the next prune.
 */
export const pruneBodies = (db: Db): Effect.Effect<void> =>
  db
    .transaction((tx) =>
      Effect.gen(function* () {
        yield* tx.query("set local lock_timeout = '1s'");
        yield* tx.query("lock table page_bodies in share row exclusive mode");
        yield* tx.query(
          `delete from page_bodies b
           where not exists (select 1 from run_artifacts a where a.sha256 = b.sha256)
             and not exists (select 1 from page_reads p where p.sha256 = b.sha256)`,
        );
      }),
    )
    .pipe(Effect.catchAll((failure) => Effect.logInfo(`page bodies not pruned this time: ${failure.message}`)));
