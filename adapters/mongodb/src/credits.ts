import { type CreditsService, grantEntry, type OwnerId, type StorageFailure } from "@gleaner/core";
import * as Effect from "effect/Effect";
import { isUuid, toUuid } from "./bson.js";
import { isDuplicateKey } from "./errors.js";
import { ledgerFromDoc, ledgerToDoc } from "./documents.js";
import type { Mongo } from "./mongo.js";
import { ledgerSince, newestLedgerFirst } from "./queries.js";

/**
 * Creates the owner's credit account if it has none, outside any transaction, so that the
 * transactions that grant and charge only ever update it (an insert racing inside two
 * transactions would make one of them fail instead of retry).
 */
export const ensureAccount = (mongo: Mongo, ownerId: OwnerId): Effect.Effect<void, StorageFailure> =>
  mongo.run("creating a credit account", async () => {
    const upsert = () =>
      mongo.collections.accounts.updateOne(
        { _id: toUuid(ownerId) },
        { $setOnInsert: { balance: 0, ledgerSeq: 0 } },
        { upsert: true },
      );
    try {
      await upsert();
    } catch (error) {
      // Servers since 4.2 retry this race themselves; an older one reports the duplicate key,
      // and then the document exists, so asking again simply matches it.
      if (!isDuplicateKey(error)) throw error;
      await upsert();
    }
  });

/**
 * The balance is a figure on the owner's account, changed only in the transaction that appends
 * the matching ledger entry, so it always equals the sum of the ledger.
 */
export const makeCredits = (mongo: Mongo): CreditsService => {
  const { accounts, ledger } = mongo.collections;
  return {
    balance: (ownerId) =>
      !isUuid(ownerId)
        ? Effect.succeed(0)
        : mongo.run("balance", async () => (await accounts.findOne({ _id: toUuid(ownerId) }))?.balance ?? 0),

    grant: (ownerId, amount) =>
      Effect.gen(function* () {
        const entry = yield* grantEntry(amount);
        yield* ensureAccount(mongo, ownerId);
        yield* mongo.transaction("grant", async (session) => {
          const account = await accounts.findOneAndUpdate(
            { _id: toUuid(ownerId) },
            { $inc: { balance: amount, ledgerSeq: 1 } },
            { session, returnDocument: "after" },
          );
          if (!account) throw new Error(`the credit account of ${ownerId} disappeared`);
          await ledger.insertOne(ledgerToDoc(ownerId, account.ledgerSeq, entry), { session });
        });
        return entry;
      }),

    // Newest first by insertion (seq), exactly like memory's reversed array.
    ledger: (ownerId, since) =>
      !isUuid(ownerId)
        ? Effect.succeed([])
        : mongo.run("ledger", async () =>
            (await ledger.find(ledgerSince(ownerId, since)).sort(newestLedgerFirst).toArray()).map(ledgerFromDoc),
          ),
  };
};
