import type { AcceptanceOutcome, RowRecord, RunAcceptance, StorageFailure } from "@gleaner/core";
import { Effect } from "effect";
import type { Db, Sql } from "./db.js";
import { type RunRow, runColumns, toRun } from "./records.js";
import { appendRevisions, upsertRows } from "./rows.js";
import { writeEvidence, writeRun } from "./run-writes.js";

/**
 * acceptRun in one transaction, mirroring the memory store step for step. Locks are taken in one
 * order everywhere (run, then dataset, then rows, then owner) so concurrent accepts and edits
 * queue instead of deadlocking:
 *
 * 1. the run, FOR UPDATE: a second delivery of the same run waits here, then sees it finished
 *    and gets AlreadyFinished; nothing is charged or written twice;
 * 2. the dataset row (its revision counter), so no edit slips in between the row check and the write;
 * 3. each row's head revision against the one the engine read, else RowsChanged (nothing written);
 * 4. the owner row, so two runs of one owner cannot both spend the same credits; a run already
 *    charged (the unique charge per run id) is not charged or balance-checked again; a short balance
 *    stores `heldRun` and its evidence only;
 * 5. charge, observations, revisions (sequences from the counter), rows, run, evidence.
 */
export const acceptRun = (db: Db, acceptance: RunAcceptance): Effect.Effect<AcceptanceOutcome, StorageFailure> =>
  db.transaction((tx) =>
    Effect.gen(function* () {
      const { run, charge } = acceptance;
      const [current] = yield* tx.query<RunRow>(`select ${runColumns} from runs where id = $1 for no key update`, [
        run.id,
      ]);
      if (!current) return { _tag: "AlreadyFinished", run } as const;
      if (current.status !== "running") return { _tag: "AlreadyFinished", run: toRun(current) } as const;

      yield* tx.query("select 1 from datasets where id = $1 for no key update", [run.datasetId]);
      if (!(yield* rowHeadsUnchanged(tx, run.datasetId, acceptance.rows))) return { _tag: "RowsChanged" } as const;

      yield* tx.query("select 1 from owners where id = $1 for no key update", [charge.ownerId]);
      const [charged] = yield* tx.query<{ already: boolean; balance: string }>(
        `select exists (select 1 from ledger_entries where run_id = $1 and kind = 'charge') as already,
                (select coalesce(sum(amount), 0) from ledger_entries where owner_id = $2)::text as balance`,
        [run.id, charge.ownerId],
      );
      const alreadyCharged = charged?.already ?? false;
      if (!alreadyCharged && Number(charged?.balance ?? 0) < charge.pages) {
        yield* writeRun(tx, acceptance.heldRun);
        yield* writeEvidence(tx, acceptance.heldRun.id, acceptance.heldEvidence);
        return { _tag: "Held", run: acceptance.heldRun } as const;
      }
      if (!alreadyCharged) {
        // ON CONFLICT on the per-run unique index: even a path that skipped the run lock charges once.
        yield* tx.query(
          `insert into ledger_entries (id, owner_id, kind, amount, run_id, dataset_id, pages, created_at)
           values ($1, $2, 'charge', $3, $4, $5, $6, $7)
           on conflict (run_id) where kind = 'charge' do nothing`,
          [
            charge.entryId,
            charge.ownerId,
            -charge.pages,
            run.id,
            run.datasetId,
            charge.pages,
            run.completedAt ?? run.queuedAt,
          ],
        );
      }
      if (acceptance.observations.length > 0) {
        yield* tx.query(
          `insert into observations (id, dataset_id, run_id, document)
           select (o->>'id')::uuid, (o->>'datasetId')::uuid, (o->>'runId')::uuid, o
             from jsonb_array_elements($1::jsonb) as o
           on conflict (id) do update set dataset_id = excluded.dataset_id, run_id = excluded.run_id,
                                          document = excluded.document`,
          [JSON.stringify(acceptance.observations)],
        );
      }
      yield* appendRevisions(tx, run.datasetId, acceptance.revisions);
      yield* upsertRows(
        tx,
        run.datasetId,
        acceptance.rows.map(({ row }) => row),
      );
      yield* writeRun(tx, run);
      yield* writeEvidence(tx, run.id, acceptance.evidence);
      return { _tag: "Accepted", run } as const;
    }),
  );

const rowHeadsUnchanged = (
  tx: Sql,
  datasetId: string,
  rows: RunAcceptance["rows"],
): Effect.Effect<boolean, StorageFailure> =>
  rows.length === 0
    ? Effect.succeed(true)
    : tx
        .query<{ id: string; revision_id: string | null }>(
          "select id, revision_id from rows where dataset_id = $1 and id = any($2::uuid[]) for no key update",
          [datasetId, rows.map(({ row }) => row.id)],
        )
        .pipe(
          Effect.map((stored) => {
            const heads = new Map(stored.map((row) => [row.id, row.revision_id]));
            return rows.every(({ row, expectedRevisionId }: { row: RowRecord; expectedRevisionId: unknown }) =>
              expectedRevisionId === "absent"
                ? !heads.has(row.id)
                : heads.has(row.id) && heads.get(row.id) === expectedRevisionId,
            );
          }),
        );
