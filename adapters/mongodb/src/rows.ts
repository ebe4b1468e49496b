import { RowsPageState, type RowStorage, type SourceObservation, type StoredRevision } from "@gleaner/core";
import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import { fromUuid, fromUuidOrNull, isUuid, toUuid } from "./bson.js";
import { ConflictSignal, conflicts } from "./errors.js";
import type { Mongo } from "./mongo.js";
import { decodedOrThrow } from "./decoded.js";
import { isEmptyLimit, newestRowsFirst, newestRunsFirst, revisionsWindow, rowsPage } from "./queries.js";
import {
  observationFromDoc,
  type RevisionDoc,
  revisionFromDoc,
  revisionToDoc,
  rowFromDoc,
  rowToDoc,
} from "./row-documents.js";
import { indexNames } from "./schema.js";
import { allocateSequences } from "./sequences.js";

const decodePageState = decodedOrThrow(RowsPageState, "rows page state");

export const makeRowMethods = (mongo: Mongo): RowStorage => {
  const { datasets, rows, revisions, observations, runs } = mongo.collections;
  return {
    loadRows: (datasetId) =>
      !isUuid(datasetId)
        ? Effect.succeed([])
        : mongo.run("loadRows", async () =>
            (await rows.find({ datasetId: toUuid(datasetId) }).toArray()).map(rowFromDoc),
          ),

    listRows: (datasetId, page) =>
      !isUuid(datasetId) || isEmptyLimit(page.limit)
        ? Effect.succeed([])
        : mongo.run("listRows", async () =>
            (await rows.find(rowsPage(datasetId, page)).sort(newestRowsFirst).limit(page.limit).toArray()).map(
              rowFromDoc,
            ),
          ),

    getRow: (datasetId, rowId) =>
      !isUuid(datasetId) || !isUuid(rowId)
        ? Effect.succeed(Option.none())
        : mongo.run("getRow", async () => {
            const doc = await rows.findOne({ _id: toUuid(rowId), datasetId: toUuid(datasetId) });
            return doc ? Option.some(rowFromDoc(doc)) : Option.none();
          }),

    // Checks in memory's order (duplicate request, then stale head), then the append, in one
    // transaction. Two edits of one row both write the row and the dataset's counter, so the
    // later one conflicts, is retried, and then sees the new head (stale_revision). The unique
    // (datasetId, requestId) index still guards a request id racing in from another row.
    applyEdit: (row, expectedRevisionId, revision) =>
      !isUuid(row.datasetId) || !isUuid(row.id)
        ? Effect.fail(conflicts.staleRevision())
        : mongo.guardedTransaction(
            "applyEdit",
            { [indexNames.revisionRequest]: conflicts.duplicateRequest },
            async (session): Promise<StoredRevision> => {
              const datasetId = toUuid(row.datasetId);
              if (revision.requestId !== null) {
                const used = await revisions.findOne(
                  { datasetId, requestId: revision.requestId },
                  { session, projection: { _id: 1 } },
                );
                if (used) throw new ConflictSignal(conflicts.duplicateRequest());
              }
              const head = await rows.findOne(
                { _id: toUuid(row.id), datasetId },
                { session, projection: { _id: 1, revisionId: 1 } },
              );
              if (!head || fromUuidOrNull(head.revisionId) !== expectedRevisionId) {
                throw new ConflictSignal(conflicts.staleRevision());
              }
              const sequence = await allocateSequences(mongo.collections, session, row.datasetId, 1);
              await revisions.insertOne(revisionToDoc(revision, sequence), { session });
              const { _id, ...replacement } = rowToDoc(row);
              await rows.replaceOne({ _id }, replacement, { session, upsert: true });
              return { ...revision, sequence };
            },
          ),

    findRevisionByRequest: (datasetId, requestId) =>
      !isUuid(datasetId)
        ? Effect.succeed(Option.none())
        : mongo.run("findRevisionByRequest", async () => {
            const doc = await revisions.findOne({ datasetId: toUuid(datasetId), requestId });
            return doc ? Option.some(revisionFromDoc(doc)) : Option.none();
          }),

    listRevisions: (datasetId, window) =>
      !isUuid(datasetId) || (window.rowId !== null && !isUuid(window.rowId)) || isEmptyLimit(window.limit)
        ? Effect.succeed([])
        : mongo.run("listRevisions", async () =>
            (
              await revisions
                .find(revisionsWindow(datasetId, window))
                .sort({ sequence: 1 })
                .limit(window.limit)
                .toArray()
            ).map(revisionFromDoc),
          ),

    // Each row's first revision in (rowId, sequence desc) order is its head as of `asOf`; the
    // rows collection supplies the key, which revisions do not carry.
    listRowsAsOf: (datasetId, { asOf, after, limit }) =>
      !isUuid(datasetId) || (after !== null && !isUuid(after)) || isEmptyLimit(limit)
        ? Effect.succeed([])
        : mongo.run("listRowsAsOf", async () => {
            const heads = await revisions
              .aggregate<{ head: RevisionDoc }>([
                {
                  $match: {
                    datasetId: toUuid(datasetId),
                    sequence: { $lte: asOf },
                    ...(after !== null ? { rowId: { $gt: toUuid(after) } } : {}),
                  },
                },
                { $sort: { rowId: 1, sequence: -1 } },
                { $group: { _id: "$rowId", head: { $first: "$$ROOT" } } },
                { $sort: { _id: 1 } },
                { $limit: limit },
              ])
              .toArray();
            const keys = new Map(
              (await rows.find({ _id: { $in: heads.map((h) => h.head.rowId) } }).toArray()).map((row) => [
                fromUuid(row._id),
                row.rowKey,
              ]),
            );
            return heads.map(({ head }) => {
              const revision = revisionFromDoc(head);
              return { rowKey: keys.get(revision.rowId) ?? "", revision };
            });
          }),

    lastSequence: (datasetId) =>
      !isUuid(datasetId)
        ? Effect.succeed(0)
        : mongo.run(
            "lastSequence",
            async () =>
              (await datasets.findOne({ _id: toUuid(datasetId) }, { projection: { lastSequence: 1 } }))?.lastSequence ??
              0,
          ),

    // Two reads, not one snapshot: that is enough for a tag. Each input only ever moves forward and
    // both are read before the page, so a write between them yields a tag no state after the write
    // produces again (decision 0042).
    rowsPageState: (ownerId, datasetId) =>
      !isUuid(ownerId) || !isUuid(datasetId)
        ? Effect.succeed(Option.none())
        : mongo.run("rowsPageState", async () => {
            const dataset = await datasets.findOne(
              { _id: toUuid(datasetId), ownerId: toUuid(ownerId) },
              { projection: { revision: 1, lastSequence: 1 } },
            );
            if (!dataset) return Option.none();
            const newest = await runs.findOne(
              { datasetId: dataset._id },
              { sort: newestRunsFirst, projection: { _id: 1, status: 1 } },
            );
            return Option.some(
              decodePageState(
                {
                  revision: dataset.revision,
                  lastSequence: dataset.lastSequence ?? 0,
                  newestRun: newest ? { id: fromUuid(newest._id), status: newest.status } : null,
                },
                datasetId,
              ),
            );
          }),

    // In the order asked, a repeated id repeated, unknown ids left out (as memory's flatMap does).
    getObservations: (ids) => {
      const wanted = [...new Set(ids.filter(isUuid))];
      return wanted.length === 0
        ? Effect.succeed([])
        : mongo.run("getObservations", async () => {
            const docs = await observations.find({ _id: { $in: wanted.map(toUuid) } }).toArray();
            const byId = new Map<string, SourceObservation>(
              docs.map((doc) => [fromUuid(doc._id), observationFromDoc(doc)]),
            );
            return ids.flatMap((id) => {
              const observation = byId.get(id);
              return observation ? [observation] : [];
            });
          });
    },
  };
};
