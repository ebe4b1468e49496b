import type { RunStorage } from "@gleaner/core";
import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import { isUuid, toDate, toUuid } from "./bson.js";
import { heldOutcomeOf } from "./held-outcomes.js";
import { acceptRun } from "./accept.js";
import { pageReadFromDoc } from "./page-reads.js";
import { datasetFromDoc, runFromDoc, runToDoc } from "./documents.js";
import { conflicts } from "./errors.js";
import type { Mongo } from "./mongo.js";
import { claimable, isEmptyLimit, newestRunsFirst } from "./queries.js";
import {
  artifactEntryFromDoc,
  artifactFromDoc,
  artifactWithoutBody,
  evidenceFromDocs,
  recipeFromDoc,
  traceFromDoc,
} from "./row-documents.js";
import { writeEvidence, writeRun } from "./run-writes.js";
import { indexNames } from "./schema.js";
import { writeOutbox } from "./webhooks.js";

export const makeRunMethods = (mongo: Mongo): Omit<RunStorage, "pruneRunRecords"> => {
  const { runs, datasets, evidence, artifacts, traceProgress } = mongo.collections;
  return {
    // The unique index on datasetId over active runs is the guard: no read-then-insert race.
    insertRun: (run) =>
      mongo.guarded("insertRun", { [indexNames.oneActiveRunPerDataset]: conflicts.runInProgress }, async () => {
        await runs.insertOne(runToDoc(run));
      }),

    getRun: (ownerId, runId) =>
      !isUuid(ownerId) || !isUuid(runId)
        ? Effect.succeed(Option.none())
        : mongo.run("getRun", async () => {
            const doc = await runs.findOne({ _id: toUuid(runId), ownerId: toUuid(ownerId) });
            return doc ? Option.some(runFromDoc(doc)) : Option.none();
          }),

    listRuns: (datasetId, limit) =>
      !isUuid(datasetId) || isEmptyLimit(limit)
        ? Effect.succeed([])
        : mongo.run("listRuns", async () =>
            (
              await runs
                .find({ datasetId: toUuid(datasetId) })
                .sort(newestRunsFirst)
                .limit(limit)
                .toArray()
            ).map(runFromDoc),
          ),

    // One findOneAndUpdate: atomic on the document, so two workers cannot both claim a queued run.
    claimRun: (runId, startedAt, reclaimRunning) =>
      !isUuid(runId)
        ? Effect.succeed(Option.none())
        : mongo.run("claimRun", async () => {
            const doc = await runs.findOneAndUpdate(
              claimable(runId, reclaimRunning),
              { $set: { status: "running", active: true, startedAt: toDate(startedAt) }, $inc: { attempts: 1 } },
              { returnDocument: "after" },
            );
            if (!doc) return Option.none();
            // The run's dataset, for the run to pin (the owner's, like getDataset).
            // Decoded when the run pins it (ClaimedRun): a claim never fails on it.
            const found = await datasets.findOne({ _id: doc.datasetId, ownerId: doc.ownerId });
            const dataset = found
              ? mongo.run("pinning a dataset", async () => Option.some(datasetFromDoc(found)))
              : Effect.succeedNone;
            return Option.some({ run: runFromDoc(doc), dataset });
          }),

    // Read, then replace the run: a concurrent finish or acceptance also replaces it, so one of
    // the two transactions conflicts, is retried, and then sees the run finished.
    finishRun: (run, runEvidence) =>
      mongo.transaction("finishRun", async (session) => {
        const current = isUuid(run.id) ? await runs.findOne({ _id: toUuid(run.id) }, { session }) : null;
        if (!current) return run;
        if (current.status !== "running") return runFromDoc(current);
        await writeRun(mongo.collections, session, run);
        await writeEvidence(mongo.collections, session, run.id, runEvidence);
        await writeOutbox(mongo.collections, session, run, null);
        return run;
      }),

    acceptRun: (acceptance) => acceptRun(mongo, acceptance),

    saveTraceProgress: (runId, trace) =>
      mongo.run("saveTraceProgress", async () => {
        const run = await runs.findOne({ _id: toUuid(runId) }, { projection: { status: 1 } });
        if (run?.status !== "running") return;
        await traceProgress.replaceOne({ _id: toUuid(runId) }, { trace }, { upsert: true });
      }),

    getTraceProgress: (runId) =>
      !isUuid(runId)
        ? Effect.succeed(Option.none())
        : mongo.run("getTraceProgress", async () => {
            const run = await runs.findOne({ _id: toUuid(runId) }, { projection: { status: 1 } });
            if (run?.status !== "running") return Option.none();
            const doc = await traceProgress.findOne({ _id: toUuid(runId) });
            return doc ? Option.some(traceFromDoc(doc)) : Option.none();
          }),

    ownerActivity: (ownerId, since) =>
      !isUuid(ownerId)
        ? Effect.succeed({ datasets: 0, activeRuns: 0, runsSince: 0, oldestRunSince: null })
        : mongo.run("ownerActivity", async () => {
            const owner = toUuid(ownerId);
            const recent = { ownerId: owner, queuedAt: { $gte: toDate(since) } };
            const [datasets, activeRuns, runsSince, oldest] = await Promise.all([
              mongo.collections.datasets.countDocuments({ ownerId: owner }),
              runs.countDocuments({ ownerId: owner, active: true }),
              runs.countDocuments(recent),
              runs.find(recent).sort({ queuedAt: 1 }).limit(1).next(),
            ]);
            return { datasets, activeRuns, runsSince, oldestRunSince: oldest ? oldest.queuedAt.toISOString() : null };
          }),

    getRunEvidence: (runId) =>
      !isUuid(runId)
        ? Effect.succeed(Option.none())
        : mongo.run("getRunEvidence", async () => {
            const doc = await evidence.findOne({ _id: toUuid(runId) });
            if (!doc) return Option.none();
            const pages = await artifacts
              .find({ runId: toUuid(runId) })
              .sort({ position: 1 })
              .toArray();
            return Option.some(evidenceFromDocs(doc, pages));
          }),

    getRunTrace: (runId) =>
      !isUuid(runId)
        ? Effect.succeed(Option.none())
        : mongo.run("getRunTrace", async () => {
            const doc = await evidence.findOne({ _id: toUuid(runId) }, { projection: { trace: 1 } });
            return doc ? Option.some(traceFromDoc(doc)) : Option.none();
          }),

    listRunArtifacts: (runId) =>
      !isUuid(runId)
        ? Effect.succeed(Option.none())
        : mongo.run("listRunArtifacts", async () => {
            // Both at once: the evidence (its recipe, and whether there is any) and its artifacts.
            const [doc, pages] = await Promise.all([
              evidence.findOne({ _id: toUuid(runId) }, { projection: { recipe: 1 } }),
              artifacts
                .find({ runId: toUuid(runId) }, { projection: artifactWithoutBody })
                .sort({ position: 1 })
                .toArray(),
            ]);
            if (!doc) return Option.none();
            return Option.some({ recipe: recipeFromDoc(doc), artifacts: pages.map(artifactEntryFromDoc) });
          }),

    heldOutcome: (datasetId) => (!isUuid(datasetId) ? Effect.succeed(Option.none()) : heldOutcomeOf(mongo, datasetId)),
    acceptedReads: (datasetId) =>
      !isUuid(datasetId)
        ? Effect.succeed([])
        : mongo.run("acceptedReads", async () => {
            const docs = await mongo.collections.pageReads.find({ datasetId: toUuid(datasetId) }).toArray();
            return docs.map(pageReadFromDoc);
          }),
    // Each artifact document keeps its own body: the run's evidence brings every body it cites.

    getArtifact: (runId, artifactId) =>
      !isUuid(runId)
        ? Effect.succeed(Option.none())
        : mongo.run("getArtifact", async () => {
            const doc = await artifacts.findOne({ runId: toUuid(runId), artifactId }, { sort: { position: 1 } });
            return doc ? Option.some(artifactFromDoc(doc)) : Option.none();
          }),
  };
};
