import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import type { StorageFailure } from "../errors.js";
import type { OwnerId } from "../schema/ids.js";
import { newId } from "../schema/ids.js";
import type { LedgerEntry } from "../schema/usage.js";
import { nowIso } from "../time.js";

/**
 * Credit balances and their ledger. The balance always equals the sum of the owner's ledger
 * entries; an adapter keeps both in the same store as Storage so a run's charge commits with it.
 */
export interface CreditsService {
  readonly balance: (ownerId: OwnerId) => Effect.Effect<number, StorageFailure>;
  /** Adds credits (amount > 0) and returns the ledger entry. */
  readonly grant: (ownerId: OwnerId, amount: number) => Effect.Effect<LedgerEntry, StorageFailure>;
  /** Ledger entries created at or after `since` (ISO date-time), newest first. */
  readonly ledger: (ownerId: OwnerId, since: string) => Effect.Effect<ReadonlyArray<LedgerEntry>, StorageFailure>;
}

export class Credits extends Context.Tag("@gleaner/core/Credits")<Credits, CreditsService>() {}

/** The ledger entry of a grant as every Credits adapter records it, stamped by Effect's Clock. */
export const grantEntry = (amount: number): Effect.Effect<LedgerEntry> =>
  Effect.map(nowIso, (createdAt) => ({
    id: newId(),
    kind: "grant",
    amount,
    runId: null,
    datasetId: null,
    pages: null,
    createdAt,
  }));
