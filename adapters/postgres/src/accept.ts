import {
  type AcceptanceFacts,
  type AcceptanceOutcome,
  acceptanceOutcome,
  decideAcceptance,
  type RunAcceptance,
  type StorageFailure,
  stampAcceptance,
} from "@gleaner/core";
import * as Clock from "effect/Clock";
import * as Effect from "effect/Effect";
import type { Db, Sql } from "./db.js";
import { encodeEvidence, sendBodies, sendEvidence } from "./evidence.js";
import { dropHeldOutcome, writeHeldOutcome } from "./held-outcomes.js";
import { sendPageReads } from "./page-reads.js";
import { toRun } from "./records.js";
import { sendObservations, sendRevisions, sendRows } from "./rows.js";
import { sendRun } from "./records.js";
import { writeOutbox } from "./webhooks.js";

/**
 * acceptRun in one transaction: read core's acceptance facts under locks, let core decide, apply
 * the decision. Locks are taken in one order everywhere (run, then dataset, then owner) so
 * concurrent accepts and edits queue instead of deadlocking:
 *
 * 1. the run, FOR NO KEY UPDATE: a second delivery of the same run waits here, then sees it
 *    finished and gets AlreadyFinished; nothing is charged or written twice;
 * 2. the dataset row: every write to the dataset's rows and revisions (an acceptance, an edit) takes
 *    it first, so the row heads read next cannot change before this transaction ends;
 * 3. the owner row, so two runs of one owner cannot both spend the same credits: whether the run is
 *    already charged (the unique charge per run id) and the balance kept on the owner (migration 0014);
 * 4. then, as decided: the held run, its evidence, its outcome and webhook messages; or the charge,
 *    revisions, observations, rows (those the run saw unchanged only as its sighting), page reads,
 *    page bodies, then the run and its evidence stamped (`stampAcceptance`) once those are written,
 *    and its webhook messages (outbox). The writes are sent one after another without waiting
 *    (`Sql.send`, the connection pipelining): the server runs one while the host encodes the next.
 */
export const acceptRun = (db: Db, acceptance: RunAcceptance): Effect.Effect<AcceptanceOutcome, StorageFailure> =>
  db.transaction((tx) =>
    Effect.gen(function* () {
      const decision = decideAcceptance(acceptance, yield* readFacts(tx, acceptance));
      const { run, bodiesStored } = acceptance;
      if (decision._tag === "Held") {
        const bodies = yield* sendBodies(tx, acceptance.heldEvidence.artifacts, bodiesStored ?? []);
        const stamped = stampAcceptance(acceptance, yield* Clock.currentTimeMillis);
        const held = acceptance.heldOutcome();
        const ran = yield* sendRun(tx, stamped.heldRun);
        const evidenced = yield* sendEvidence(
          tx,
          run.id,
          encodeEvidence(acceptance.heldEvidence),
          stamped.heldEvidence.trace,
        );
        yield* Effect.all([bodies, ran, evidenced], { discard: true });
        yield* writeHeldOutcome(tx, held);
        yield* writeOutbox(tx, stamped.heldRun, null, held.reason);
        return { _tag: "Held", run: stamped.heldRun } as const;
      }
      if (decision._tag !== "Accepted") return acceptanceOutcome(decision);
      if (acceptance.acceptingHeld) yield* dropHeldOutcome(tx, run.datasetId);
      const { charge } = decision;
      if (charge) {
        // ON CONFLICT on the per-run unique index: even a path that skipped the run lock charges once.
        yield* tx.query(
          `insert into ledger_entries (id, owner_id, kind, amount, run_id, dataset_id, pages, created_at)
           values ($1, $2, 'charge', $3, $4, $5, $6, $7)
           on conflict (run_id) where kind = 'charge' do nothing`,
          [
            charge.id,
            acceptance.charge.ownerId,
            charge.amount,
            charge.runId,
            charge.datasetId,
            charge.pages,
            charge.createdAt,
          ],
        );
      }
      const { first, written } = yield* sendRevisions(tx, run.datasetId, acceptance.revisions);
      const observed = yield* sendObservations(tx, acceptance.observations);
      // Rows seen unchanged are not rewritten: the run's sighting stands for their seen-markers.
      const rowsWritten = yield* sendRows(
        tx,
        acceptance.rows.filter((r) => !r.seenOnly).map(({ row }) => row),
      );
      const sighted = yield* sendSighting(tx, acceptance);
      const pagesRead = yield* sendPageReads(tx, acceptance);
      const bodies = yield* sendBodies(tx, acceptance.evidence.artifacts, bodiesStored ?? []);
      // Encoded while the server writes the rest: only the trace waits for the stamp.
      const evidence = encodeEvidence(acceptance.evidence);
      yield* Effect.all([written, observed, rowsWritten, sighted, pagesRead, bodies], { discard: true });
      const stamped = stampAcceptance(acceptance, yield* Clock.currentTimeMillis);
      const ran = yield* sendRun(tx, stamped.run);
      const evidenced = yield* sendEvidence(tx, run.id, evidence, stamped.evidence.trace);
      yield* ran;
      yield* evidenced;
      // The events carry the run as stored (stamped), like every reader after this transaction.
      yield* writeOutbox(tx, stamped.run, { lastSequenceBefore: first - 1, revisions: acceptance.revisions });
      return { _tag: "Accepted", run: stamped.run } as const;
    }),
  );

const readFacts = (
  tx: Sql,
  { run, charge, rows, acceptingHeld }: RunAcceptance,
): Effect.Effect<AcceptanceFacts, StorageFailure> =>
  Effect.gen(function* () {
    const [stored] = yield* tx.query("select * from runs where id = $1 for no key update", [run.id]);
    yield* tx.query("select 1 from datasets where id = $1 for no key update", [run.datasetId]);
    const [owner] = yield* tx.query<{ already: boolean; balance: string }>(
      `select exists (select 1 from ledger_entries where run_id = $1 and kind = 'charge') as already,
              o.balance::text as balance
         from owners o where o.id = $2 for no key update`,
      [run.id, charge.ownerId],
    );
    // Accepting a held run: the dataset's newest run, read under the dataset's lock (a run queued
    // after the held one makes its outcome stale).
    const [newest] = acceptingHeld
      ? yield* tx.query<{ id: string }>(
          "select id from runs where dataset_id = $1 order by queued_at desc, id desc limit 1",
          [run.datasetId],
        )
      : [];
    // Under the dataset's lock no other writer can move a head, so they are read without row locks.
    const heads =
      rows.length === 0
        ? []
        : yield* tx.query<{ id: string; revision_id: string | null }>(
            "select id, revision_id from rows where dataset_id = $1 and id = any($2::uuid[])",
            [run.datasetId, rows.map(({ row }) => row.id)],
          );
    return {
      storedRun: stored ? yield* toRun(stored) : null,
      rowHeads: new Map(heads.map((head) => [head.id, head.revision_id])),
      alreadyCharged: owner?.already ?? false,
      balance: Number(owner?.balance ?? 0),
      ...(acceptingHeld ? { newestRunId: newest?.id ?? null } : {}),
    };
  });

/**
 * Records that the run saw its dataset (migration 0009): every acceptance replaces the sighting, so
 * the rows it did not rewrite read with its seen-markers. A run that saw rows unchanged gives them
 * all one `observedAt` (core's acceptance time): that is the sighting's.
 */
const sendSighting = (tx: Sql, { run, rows }: RunAcceptance) =>
  tx.send(
    `insert into row_sightings (dataset_id, run_id, observed_at) values ($1, $2, $3)
     on conflict (dataset_id) do update set run_id = excluded.run_id, observed_at = excluded.observed_at`,
    [run.datasetId, run.id, rows.find((r) => r.seenOnly)?.row.observedAt ?? run.completedAt ?? run.startedAt],
  );
