import type { CreditsService, OwnerId, RunRecord, StorageService } from "@gleaner/core";
import type * as Effect from "effect/Effect";

/** What storeContract hands its per-area case files: the store under test, and a running run to work with. */
export interface StoreHarness {
  /** The store's name, as the contract's titles show it. */
  readonly name: string;
  readonly run: <A, E>(f: (storage: StorageService) => Effect.Effect<A, E>) => Promise<A>;
  /** An owner with `balance` credits and a dataset whose run has been claimed (`running`). */
  readonly runningRun: (
    balance: number,
    ownerId?: OwnerId,
  ) => Promise<{ readonly ownerId: OwnerId; readonly dataset: { readonly id: string }; readonly running: RunRecord }>;
  readonly credits: () => Promise<CreditsService>;
}
