import type { DatasetStorage } from "@gleaner/core";
import * as Effect from "effect/Effect";
import { type Db, isUuid } from "./db.js";
import { pruneBodies } from "./retention.js";

/** What is kept for a dataset beside its row in `datasets`, in the order it is removed (children first). */
const byDataset = [
  "delete from held_outcomes where dataset_id = $1",
  "delete from page_reads where dataset_id = $1",
  "delete from row_sightings where dataset_id = $1",
  // Attempts go with their messages (on delete cascade), messages with their webhooks.
  "delete from webhook_messages where dataset_id = $1",
  "delete from webhooks where dataset_id = $1",
  "delete from observations where dataset_id = $1 or run_id in (select id from runs where dataset_id = $1)",
  "delete from revisions where dataset_id = $1",
  "delete from rows where dataset_id = $1",
  "delete from run_artifacts where run_id in (select id from runs where dataset_id = $1)",
  "delete from run_evidence where run_id in (select id from runs where dataset_id = $1)",
  "delete from run_trace_progress where run_id in (select id from runs where dataset_id = $1)",
  "delete from runs where dataset_id = $1",
  "delete from datasets where id = $1",
];

/**
 * Storage.deleteDataset in one transaction: the dataset row is locked first, so a run accepting
 * into it finishes before, or finds its run gone after. The ledger keeps its entries; the page
 * bodies only the dataset's reads held go after it, as a prune takes them (or the next prune).
 */
export const makeDeleteDataset = (db: Db): Pick<DatasetStorage, "deleteDataset"> => ({
  deleteDataset: (ownerId, id) =>
    !isUuid(ownerId) || !isUuid(id)
      ? Effect.succeed(false)
      : db
          .transaction((tx) =>
            Effect.gen(function* () {
              const found = yield* tx.query("select 1 from datasets where id = $1 and owner_id = $2 for update", [
                id,
                ownerId,
              ]);
              if (found.length === 0) return false;
              for (const statement of byDataset) yield* tx.query(statement, [id]);
              return true;
            }),
          )
          .pipe(Effect.tap((deleted) => (deleted ? pruneBodies(db) : Effect.void))),
});
