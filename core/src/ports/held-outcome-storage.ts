import type * as Effect from "effect/Effect";
import type * as Option from "effect/Option";
import type { StorageFailure } from "../errors.js";
import type { HeldOutcome } from "../held-outcome.js";
import type { DatasetId } from "../schema/ids.js";

/**
 * The held-outcome part of the Storage port (decision 0040): what the dataset's newest held run would
 * have written, so its owner can accept it later. It is written by acceptRun when it holds a run
 * (`RunAcceptance.heldOutcome`), in the same unit of work, replacing the dataset's previous one, and
 * dropped when a held run is accepted: a store keeps at most one per dataset.
 */
export interface HeldOutcomeStorage {
  readonly heldOutcome: (datasetId: DatasetId) => Effect.Effect<Option.Option<HeldOutcome>, StorageFailure>;
}
