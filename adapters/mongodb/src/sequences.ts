import type { ClientSession } from "mongodb";
import { toUuid } from "./bson.js";
import type { Collections } from "./schema.js";

/**
 * Hands out the dataset's next `count` revision sequences (last + 1 … last + count) and returns
 * the first. The $inc is a write to the dataset document inside the caller's transaction: two
 * transactions allocating for one dataset conflict, the loser is retried from the start and
 * allocates after the winner, and an aborted transaction gives its numbers back with everything
 * else. Sequences are therefore gapless and unique (the unique (datasetId, sequence) index
 * double-checks it).
 */
export const allocateSequences = async (
  collections: Collections,
  session: ClientSession,
  datasetId: string,
  count: number,
): Promise<number> => {
  const counter = await collections.datasets.findOneAndUpdate(
    { _id: toUuid(datasetId) },
    { $inc: { lastSequence: count } },
    { session, returnDocument: "after", projection: { lastSequence: 1 } },
  );
  if (!counter) throw new Error(`revisions for dataset ${datasetId}, which does not exist`);
  return firstOfBlock(counter.lastSequence, count);
};

/** After $inc by `count` the counter holds the block's last number. */
export const firstOfBlock = (lastAfterIncrement: number, count: number): number => lastAfterIncrement - count + 1;
