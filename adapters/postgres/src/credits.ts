import { type CreditsService, grantEntry, LedgerEntry, storedDecoder } from "@gleaner/core";
import * as Effect from "effect/Effect";
import { allDecoded, type Db, isUuid, iso } from "./db.js";

interface LedgerRow {
  readonly id: string;
  readonly kind: LedgerEntry["kind"];
  readonly amount: number;
  readonly run_id: string | null;
  readonly dataset_id: string | null;
  readonly pages: number | null;
  readonly created_at: Date;
}

const decodeEntry = storedDecoder(LedgerEntry, "PostgreSQL", "ledger entry");

const toEntry = (row: LedgerRow) =>
  decodeEntry({
    id: row.id,
    kind: row.kind,
    amount: row.amount,
    runId: row.run_id,
    datasetId: row.dataset_id,
    pages: row.pages,
    createdAt: iso(row.created_at),
  });

/**
 * The balance is the sum of the ledger. The owner row keeps that sum, maintained by a trigger on each
 * ledger insert in the same transaction (migration 0014), so reading it does not grow with the ledger.
 */
export const makeCredits = (db: Db): CreditsService => ({
  balance: (ownerId) =>
    !isUuid(ownerId)
      ? Effect.succeed(0)
      : db
          .query<{ balance: string }>("select balance::text as balance from owners where id = $1", [ownerId])
          .pipe(Effect.map((rows) => Number(rows[0]?.balance ?? 0))),

  grant: (ownerId, amount) =>
    Effect.gen(function* () {
      const entry = yield* grantEntry(amount);
      yield* db.query(
        `insert into ledger_entries (id, owner_id, kind, amount, run_id, dataset_id, pages, created_at)
         values ($1, $2, 'grant', $3, null, null, null, $4)`,
        [entry.id, ownerId, amount, entry.createdAt],
      );
      return entry;
    }),

  // Newest first by insertion (seq), exactly like memory's reversed array.
  ledger: (ownerId, since) =>
    !isUuid(ownerId)
      ? Effect.succeed([])
      : db
          .query<LedgerRow>(
            `select id, kind, amount, run_id, dataset_id, pages, created_at from ledger_entries
              where owner_id = $1 and created_at >= $2
              order by seq desc`,
            [ownerId, since],
          )
          .pipe(Effect.flatMap(allDecoded(toEntry))),
});
