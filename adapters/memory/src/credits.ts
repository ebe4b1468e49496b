import { type CreditsService, grantEntry } from "@gleaner/core";
import * as Effect from "effect/Effect";
import type { MemoryState } from "./state.js";

export const makeMemoryCredits = (state: MemoryState): CreditsService => ({
  balance: (ownerId) => Effect.sync(() => state.balanceOf(ownerId)),
  grant: (ownerId, amount) =>
    Effect.map(grantEntry(amount), (entry) => {
      state.addLedgerEntry({ ...entry, ownerId });
      return entry;
    }),
  ledger: (ownerId, since) =>
    Effect.sync(() =>
      state.ledger
        .filter((e) => e.ownerId === ownerId && e.createdAt >= since)
        .reverse()
        .map(({ ownerId: _owner, ...entry }) => entry),
    ),
});
