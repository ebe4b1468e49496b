import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import type { RowsPageState } from "./domain.js";
import type { StorageFailure } from "./errors.js";
import type { AcceptedRead } from "./page-reads.js";
import type { StorageService } from "./ports/storage.js";
import type { DatasetId, OwnerId } from "./schema/ids.js";

/**
 * What core does when a store leaves out a method that only makes something faster (the port's
 * optional methods): the same answer from the methods every store has.
 */

/** Without kept reads, every run reads every page in full. */
export const acceptedReadsOf = (
  storage: StorageService,
  datasetId: DatasetId,
): Effect.Effect<ReadonlyArray<AcceptedRead>, StorageFailure> =>
  storage.acceptedReads ? storage.acceptedReads(datasetId) : Effect.succeed([]);

/**
 * A rows page's tag inputs in three reads instead of one. Read apart, a write in between can give a
 * tag that matches no state; the next read then gets another tag, so it costs a full answer, never a
 * wrong 304.
 */
export const rowsPageStateOf = (
  storage: StorageService,
  ownerId: OwnerId,
  datasetId: DatasetId,
): Effect.Effect<Option.Option<RowsPageState>, StorageFailure> =>
  storage.rowsPageState
    ? storage.rowsPageState(ownerId, datasetId)
    : Effect.flatMap(storage.getDataset(ownerId, datasetId), (found) =>
        Option.isNone(found)
          ? Effect.succeed(Option.none())
          : Effect.all([storage.lastSequence(datasetId), storage.listRuns(datasetId, 1)]).pipe(
              Effect.map(([lastSequence, [newest]]) =>
                Option.some({
                  revision: found.value.record.revision,
                  lastSequence,
                  newestRun: newest ? { id: newest.id, status: newest.status } : null,
                }),
              ),
            ),
      );
