import { type DatasetId, HeldOutcome, storedDecoder } from "@gleaner/core";
import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import * as Schema from "effect/Schema";
import type { Db, Sql } from "./db.js";

// A dataset's held outcome (decision 0040, migration 0018): one row per dataset, its JSON as text.

const decodeOutcome = storedDecoder(HeldOutcome, "PostgreSQL", "held outcome");
const encodeOutcome = Schema.encodeSync(HeldOutcome);

/** Replaces the dataset's held outcome. */
export const writeHeldOutcome = (tx: Sql, outcome: HeldOutcome) =>
  tx.query(
    `insert into held_outcomes (dataset_id, run_id, outcome) values ($1, $2, $3)
     on conflict (dataset_id) do update set run_id = excluded.run_id, outcome = excluded.outcome`,
    [outcome.datasetId, outcome.runId, JSON.stringify(encodeOutcome(outcome))],
  );

/** Drops the dataset's held outcome (a held run was accepted). */
export const dropHeldOutcome = (tx: Sql, datasetId: string) =>
  tx.query("delete from held_outcomes where dataset_id = $1", [datasetId]);

export const heldOutcomeOf = (db: Db, datasetId: DatasetId) =>
  Effect.flatMap(
    db.query<{ outcome: string }>("select outcome from held_outcomes where dataset_id = $1", [datasetId]),
    ([row]) =>
      row === undefined
        ? Effect.succeed(Option.none<HeldOutcome>())
        : Effect.map(decodeOutcome(JSON.parse(row.outcome), datasetId), Option.some),
  );
