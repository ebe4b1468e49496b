import { type CreditsService, type LedgerEntry, newId, nowIso } from "@gleaner/core";
import { Effect } from "effect";
import type { MemoryState } from "./state.js";

export const makeMemoryCredits = (state: MemoryState): CreditsService => ({
  balance: (ownerId) => Effect.sync(() => state.balanceOf(ownerId)),
  grant: (ownerId, amount) =>
    Effect.map(nowIso, (createdAt) => {
      const entry: LedgerEntry = {
        id: newId(),
        kind: "grant",
        amount,
        runId: null,
        datasetId: null,
        pages: null,
        createdAt,
      };
      state.ledger.push({ ...entry, ownerId });
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
