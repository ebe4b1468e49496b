import type { DatasetStorage } from "@gleaner/core";
import * as Effect from "effect/Effect";
import { isUuid, toUuid } from "./bson.js";
import type { Mongo } from "./mongo.js";

/**
 * Storage.deleteDataset: the dataset and everything kept for it, in one transaction. Runs go by
 * the dataset's id; what is keyed by a run (evidence, artifacts, trace progress) goes by their ids,
 * observations by either. The ledger keeps its entries.
 */
export const makeDeleteDataset = (mongo: Mongo): Pick<DatasetStorage, "deleteDataset"> => ({
  deleteDataset: (ownerId, id) =>
    !isUuid(ownerId) || !isUuid(id)
      ? Effect.succeed(false)
      : mongo.transaction("deleteDataset", async (session) => {
          const c = mongo.collections;
          const datasetId = toUuid(id);
          const removed = await c.datasets.deleteOne({ _id: datasetId, ownerId: toUuid(ownerId) }, { session });
          if (removed.deletedCount === 0) return false;
          const runIds = (await c.runs.find({ datasetId }, { session, projection: { _id: 1 } }).toArray()).map(
            (r) => r._id,
          );
          const byRun = { _id: { $in: runIds } };
          await c.runs.deleteMany({ datasetId }, { session });
          await c.evidence.deleteMany(byRun, { session });
          await c.traceProgress.deleteMany(byRun, { session });
          await c.artifacts.deleteMany({ runId: { $in: runIds } }, { session });
          await c.rows.deleteMany({ datasetId }, { session });
          await c.revisions.deleteMany({ datasetId }, { session });
          await c.observations.deleteMany({ $or: [{ datasetId }, { runId: { $in: runIds } }] }, { session });
          await c.pageReads.deleteMany({ datasetId }, { session });
          await c.heldOutcomes.deleteMany({ _id: datasetId }, { session });
          const webhookIds = (await c.webhooks.find({ datasetId }, { session, projection: { _id: 1 } }).toArray()).map(
            (w) => w._id,
          );
          await c.webhooks.deleteMany({ datasetId }, { session });
          const messages = { $or: [{ datasetId }, { webhookId: { $in: webhookIds } }] };
          const messageIds = (
            await c.webhookMessages.find(messages, { session, projection: { _id: 1 } }).toArray()
          ).map((m) => m._id);
          await c.webhookMessages.deleteMany(messages, { session });
          await c.webhookAttempts.deleteMany(
            { $or: [{ messageId: { $in: messageIds } }, { webhookId: { $in: webhookIds } }] },
            { session },
          );
          return true;
        }),
});
