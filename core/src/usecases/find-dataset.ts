import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import { NotFound } from "../errors.js";
import { Storage } from "../ports/storage.js";
import type { DatasetId, OwnerId } from "../schema/ids.js";

/**
 * Reads an owner's dataset; another owner's dataset is simply not found. Its own module so that
 * runs, rows, exports and changes can read a dataset without importing the dataset use cases
 * (which import routines, which import runs: a cycle).
 */
export const findDataset = (ownerId: OwnerId, id: string) =>
  Effect.gen(function* () {
    const storage = yield* Storage;
    const found = yield* storage.getDataset(ownerId, id as DatasetId);
    if (Option.isNone(found)) return yield* Effect.fail(new NotFound({ resource: "dataset", id }));
    return found.value;
  });
