import {
  type AcceptanceFacts,
  type AcceptanceOutcome,
  acceptanceOutcome,
  decideAcceptance,
  type LedgerEntry,
  type RunAcceptance,
  type RunRecord,
  rowHeadsMatch,
  type StorageFailure,
  stampAcceptance,
} from "@gleaner/core";
import * as Effect from "effect/Effect";
import { type ClientSession, ObjectId } from "mongodb";
import { fromUuid, fromUuidOrNull, toUuid } from "./bson.js";
import { ensureAccount } from "./credits.js";
import { ledgerToDoc, runFromDoc } from "./documents.js";
import type { Mongo } from "./mongo.js";
import { observationToDoc, revisionToDoc, rowToDoc } from "./row-documents.js";
import { dropHeldOutcome, keepHeldOutcome } from "./held-outcomes.js";
import { writePageReads } from "./page-reads.js";
import { newestRunsFirst } from "./queries.js";
import { writeEvidence, writeRun } from "./run-writes.js";
import type { Collections } from "./schema.js";
import { allocateSequences } from "./sequences.js";
import { writeOutbox } from "./webhooks.js";

/** Core's rule, kept under this name for the adapter's own tests. */
export const headsMatch = rowHeadsMatch;

/**
 * acceptRun as one transaction: read core's acceptance facts, let core decide, apply the decision.
 *
 * 1. lock the run: a write to it ($set of a fresh `txLock`) only while it is `running`. A second
 *    delivery accepting the same run conflicts here, is retried by the driver, then finds it
 *    finished and is answered AlreadyFinished: nothing is charged or written twice;
 * 2. each row's head revision, for core's RowsChanged check. An edit that commits after this
 *    transaction's snapshot writes a row this transaction writes too, so one of them conflicts
 *    and is retried against the other's result;
 * 3. whether the run is already charged (the unique per-run charge index backs this) and the
 *    owner's balance. A charge writes the owner's account document, so two runs of one owner
 *    cannot both spend the same credits: the second conflicts and is retried on the new balance;
 * 4. as decided: the held run, its evidence, its outcome and its webhook messages, or the charge,
 *    observations, revisions (sequences from the dataset's counter), rows, the run, evidence and the
 *    run's webhook messages (outbox). Accepting a held run locks it while it is `held`, reads the
 *    dataset's newest run, and drops the dataset's held outcome.
 *
 * RowsChanged commits the lock field on the run; it is meaningless outside this function and is
 * dropped when the run is next replaced.
 */
export const acceptRun = (mongo: Mongo, acceptance: RunAcceptance): Effect.Effect<AcceptanceOutcome, StorageFailure> =>
  // The account is created outside the transaction (an idempotent upsert) so that the
  // transaction only ever updates it.
  ensureAccount(mongo, acceptance.charge.ownerId).pipe(
    Effect.zipRight(Effect.clock),
    // The stamp is read from Effect's Clock inside the transaction, once the rows are written.
    Effect.flatMap((clock) =>
      mongo.transaction("acceptRun", (session) =>
        accept(mongo.collections, session, acceptance, () => clock.unsafeCurrentTimeMillis()),
      ),
    ),
  );

const accept = async (
  collections: Collections,
  session: ClientSession,
  acceptance: RunAcceptance,
  now: () => number,
): Promise<AcceptanceOutcome> => {
  const decision = decideAcceptance(acceptance, await readFacts(collections, session, acceptance));
  if (decision._tag === "Held") {
    const stamped = stampAcceptance(acceptance, now());
    const held = acceptance.heldOutcome();
    await writeRun(collections, session, stamped.heldRun);
    await writeEvidence(collections, session, stamped.heldRun.id, stamped.heldEvidence);
    await keepHeldOutcome(collections, session, held);
    await writeOutbox(collections, session, stamped.heldRun, null, held.reason);
    return { _tag: "Held", run: stamped.heldRun };
  }
  if (decision._tag === "Accepted") {
    if (acceptance.acceptingHeld) await dropHeldOutcome(collections, session, acceptance.run.datasetId);
    return { _tag: "Accepted", run: await writeAccepted(collections, session, acceptance, decision.charge, now) };
  }
  return acceptanceOutcome(decision);
};

const readFacts = async (
  collections: Collections,
  session: ClientSession,
  { run, charge, rows, acceptingHeld }: RunAcceptance,
): Promise<AcceptanceFacts> => {
  const runId = toUuid(run.id);
  const locked = await collections.runs.findOneAndUpdate(
    { _id: runId, status: acceptingHeld ? "held" : "running" },
    { $set: { txLock: new ObjectId() } },
    { session, returnDocument: "after" },
  );
  const stored = locked ?? (await collections.runs.findOne({ _id: runId }, { session }));
  const heads =
    rows.length === 0
      ? []
      : await collections.rows
          .find(
            { datasetId: toUuid(run.datasetId), _id: { $in: rows.map(({ row }) => toUuid(row.id)) } },
            { session, projection: { _id: 1, revisionId: 1 } },
          )
          .toArray();
  const alreadyCharged = await collections.ledger.findOne(
    { runId, kind: "charge" },
    { session, projection: { _id: 1 } },
  );
  const account = await collections.accounts.findOne({ _id: toUuid(charge.ownerId) }, { session });
  const newest = acceptingHeld
    ? await collections.runs.findOne(
        { datasetId: toUuid(run.datasetId) },
        { session, sort: newestRunsFirst, projection: { _id: 1 } },
      )
    : undefined;
  return {
    ...(newest === undefined ? {} : { newestRunId: newest ? fromUuid(newest._id) : null }),
    storedRun: stored ? runFromDoc(stored) : null,
    rowHeads: new Map(heads.map((doc) => [fromUuid(doc._id), fromUuidOrNull(doc.revisionId)])),
    alreadyCharged: alreadyCharged !== null,
    balance: account?.balance ?? 0,
  };
};

const writeAccepted = async (
  collections: Collections,
  session: ClientSession,
  acceptance: RunAcceptance,
  charge: LedgerEntry | null,
  now: () => number,
): Promise<RunRecord> => {
  const { run } = acceptance;
  if (charge) {
    const account = await collections.accounts.findOneAndUpdate(
      { _id: toUuid(acceptance.charge.ownerId) },
      { $inc: { balance: charge.amount, ledgerSeq: 1 } },
      { session, returnDocument: "after" },
    );
    if (!account) throw new Error(`the credit account of ${acceptance.charge.ownerId} disappeared`);
    await collections.ledger.insertOne(ledgerToDoc(acceptance.charge.ownerId, account.ledgerSeq, charge), { session });
  }
  if (acceptance.observations.length > 0) {
    await collections.observations.bulkWrite(
      acceptance.observations.map((observation) => {
        const { _id, ...replacement } = observationToDoc(observation);
        return { replaceOne: { filter: { _id }, replacement, upsert: true } };
      }),
      { session, ordered: true },
    );
  }
  let first = 1;
  if (acceptance.revisions.length > 0) {
    first = await allocateSequences(collections, session, run.datasetId, acceptance.revisions.length);
    await collections.revisions.insertMany(
      acceptance.revisions.map((revision, index) => revisionToDoc(revision, first + index)),
      { session, ordered: true },
    );
  }
  if (acceptance.rows.length > 0) {
    await collections.rows.bulkWrite(
      acceptance.rows.map(({ row }) => {
        const { _id, ...replacement } = rowToDoc(row);
        return { replaceOne: { filter: { _id }, replacement, upsert: true } };
      }),
      { session, ordered: true },
    );
  }
  await writePageReads(collections, session, acceptance);
  const stamped = stampAcceptance(acceptance, now());
  await writeRun(collections, session, stamped.run);
  await writeEvidence(collections, session, run.id, stamped.evidence);
  await writeOutbox(collections, session, stamped.run, {
    lastSequenceBefore: first - 1,
    revisions: acceptance.revisions,
  });
  return stamped.run;
};
