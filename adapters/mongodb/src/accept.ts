import type { AcceptanceOutcome, LedgerEntry, LedgerEntryId, RunAcceptance, StorageFailure } from "@gleaner/core";
import { Effect } from "effect";
import { type ClientSession, ObjectId } from "mongodb";
import { fromUuid, fromUuidOrNull, toUuid } from "./bson.js";
import { ensureAccount } from "./credits.js";
import { ledgerToDoc, runFromDoc } from "./documents.js";
import type { Mongo } from "./mongo.js";
import { observationToDoc, revisionToDoc, rowToDoc } from "./row-documents.js";
import { writeEvidence, writeRun } from "./run-writes.js";
import type { Collections } from "./schema.js";
import { allocateSequences } from "./sequences.js";

/**
 * acceptRun as one transaction, mirroring the memory store step for step:
 *
 * 1. lock the run: a write to it ($set of a fresh `txLock`) only while it is `running`. A second
 *    delivery accepting the same run conflicts here, is retried by the driver, then finds it
 *    finished and answers AlreadyFinished: nothing is charged or written twice;
 * 2. each row's head revision against the one the engine read, else RowsChanged. An edit that
 *    commits after this transaction's snapshot writes a row this transaction writes too, so one
 *    of them conflicts and is retried against the other's result;
 * 3. charge, unless the run was already charged (the unique per-run charge index backs this):
 *    decrement the owner's account only where balance >= pages. No match means the balance is
 *    short: store `heldRun` and its evidence, nothing else. Two runs of one owner both write the
 *    account document, so they cannot both spend the same credits;
 * 4. observations, revisions (sequences from the dataset's counter), rows, the run, evidence.
 *
 * RowsChanged commits the lock field on the run; it is meaningless outside this function and is
 * dropped when the run is next replaced.
 */
export const acceptRun = (mongo: Mongo, acceptance: RunAcceptance): Effect.Effect<AcceptanceOutcome, StorageFailure> =>
  // The account is created outside the transaction (an idempotent upsert) so that the
  // conditional decrement below can tell "short balance" from "no account yet".
  ensureAccount(mongo, acceptance.charge.ownerId).pipe(
    Effect.zipRight(mongo.transaction("acceptRun", (session) => accept(mongo.collections, session, acceptance))),
  );

const accept = async (
  collections: Collections,
  session: ClientSession,
  acceptance: RunAcceptance,
): Promise<AcceptanceOutcome> => {
  const { run, charge } = acceptance;
  const runId = toUuid(run.id);
  const locked = await collections.runs.findOneAndUpdate(
    { _id: runId, status: "running" },
    { $set: { txLock: new ObjectId() } },
    { session, projection: { _id: 1 } },
  );
  if (!locked) {
    const current = await collections.runs.findOne({ _id: runId }, { session });
    return { _tag: "AlreadyFinished", run: current ? runFromDoc(current) : run };
  }

  if (!(await rowHeadsUnchanged(collections, session, acceptance))) return { _tag: "RowsChanged" };

  const alreadyCharged = await collections.ledger.findOne(
    { runId, kind: "charge" },
    { session, projection: { _id: 1 } },
  );
  if (!alreadyCharged) {
    const account = await collections.accounts.findOneAndUpdate(
      { _id: toUuid(charge.ownerId), balance: { $gte: charge.pages } },
      { $inc: { balance: -charge.pages, ledgerSeq: 1 } },
      { session, returnDocument: "after" },
    );
    if (!account) {
      await writeRun(collections, session, acceptance.heldRun);
      await writeEvidence(collections, session, acceptance.heldRun.id, acceptance.heldEvidence);
      return { _tag: "Held", run: acceptance.heldRun };
    }
    const entry: LedgerEntry = {
      id: charge.entryId as LedgerEntryId,
      kind: "charge",
      amount: -charge.pages,
      runId: run.id,
      datasetId: run.datasetId,
      pages: charge.pages,
      createdAt: run.completedAt ?? run.queuedAt,
    };
    await collections.ledger.insertOne(ledgerToDoc(charge.ownerId, account.ledgerSeq, entry), { session });
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
  if (acceptance.revisions.length > 0) {
    const first = await allocateSequences(collections, session, run.datasetId, acceptance.revisions.length);
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
  await writeRun(collections, session, run);
  await writeEvidence(collections, session, run.id, acceptance.evidence);
  return { _tag: "Accepted", run };
};

/** Memory's rule: "absent" means no stored row; otherwise the stored head must equal the expected one. */
const rowHeadsUnchanged = async (
  collections: Collections,
  session: ClientSession,
  acceptance: RunAcceptance,
): Promise<boolean> => {
  if (acceptance.rows.length === 0) return true;
  const stored = await collections.rows
    .find(
      { datasetId: toUuid(acceptance.run.datasetId), _id: { $in: acceptance.rows.map(({ row }) => toUuid(row.id)) } },
      { session, projection: { _id: 1, revisionId: 1 } },
    )
    .toArray();
  const heads = new Map(stored.map((doc) => [fromUuid(doc._id), fromUuidOrNull(doc.revisionId)]));
  return headsMatch(heads, acceptance.rows);
};

export const headsMatch = (heads: ReadonlyMap<string, string | null>, rows: RunAcceptance["rows"]): boolean =>
  rows.every(({ row, expectedRevisionId }) =>
    expectedRevisionId === "absent"
      ? !heads.has(row.id)
      : heads.has(row.id) && heads.get(row.id) === expectedRevisionId,
  );
