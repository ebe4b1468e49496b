import type { RunStorage } from "@gleaner/core";
import type { Mongo } from "./mongo.js";

/**
 * Storage.queuedRuns: the runs waiting for a worker, counted, and the oldest's queue time.
 *
 * Storage.pruneRunRecords: runs finished before the cutoff whose record is still kept (not yet
 * marked `recordPruned`), but a held outcome's run, lose their evidence and artifacts in one
 * transaction, and are marked so the next prune does not look at them again.
 */
export const makePruneRunRecords = (mongo: Mongo): Pick<RunStorage, "pruneRunRecords" | "queuedRuns"> => ({
  queuedRuns: () =>
    mongo.run("queuedRuns", async () => {
      const runs = mongo.collections.runs;
      const [count, oldest] = await Promise.all([
        runs.countDocuments({ status: "queued" }),
        runs.findOne({ status: "queued" }, { sort: { queuedAt: 1 }, projection: { queuedAt: 1 } }),
      ]);
      return { count, oldestQueuedAt: oldest ? oldest.queuedAt.toISOString() : null };
    }),
  pruneRunRecords: (finishedBefore, limit) =>
    mongo.transaction("pruneRunRecords", async (session) => {
      const c = mongo.collections;
      const held = (await c.heldOutcomes.find({}, { session, projection: { runId: 1 } }).toArray()).map((h) => h.runId);
      const due = await c.runs
        .find(
          { completedAt: { $lt: new Date(finishedBefore) }, recordPruned: { $ne: true }, _id: { $nin: held } },
          { session, projection: { _id: 1 }, limit },
        )
        .toArray();
      const ids = due.map((r) => r._id);
      if (ids.length === 0) return 0;
      await c.evidence.deleteMany({ _id: { $in: ids } }, { session });
      await c.artifacts.deleteMany({ runId: { $in: ids } }, { session });
      await c.traceProgress.deleteMany({ _id: { $in: ids } }, { session });
      await c.runs.updateMany({ _id: { $in: ids } }, { $set: { recordPruned: true } }, { session });
      return ids.length;
    }),
});
