import { Routine, type DatasetStorage, type StoredDataset } from "@gleaner/core";
import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import { fromUuid, isUuid, toUuid } from "./bson.js";
import {
  apiKeyFromDoc,
  apiKeyToDoc,
  type DatasetDoc,
  datasetFields,
  datasetFromDoc,
  datasetToDoc,
  ownerFromDoc,
  ownerToDoc,
  runSummaryFromDoc,
} from "./documents.js";
import { decodedOrThrow } from "./decoded.js";
import { ConflictSignal, conflicts } from "./errors.js";
import type { Mongo } from "./mongo.js";
import { activeRoutines, datasetsPage, isEmptyLimit, newestDatasetsFirst, newestRunsFirst } from "./queries.js";
import { indexNames } from "./schema.js";

const decodeRoutine = decodedOrThrow(Routine, "routine");

export const makeDatasetMethods = (mongo: Mongo): Omit<DatasetStorage, "deleteDataset"> => {
  const { owners, apiKeys, accounts, datasets, rows, runs } = mongo.collections;

  /**
   * The figures beside a dataset, computed at read time exactly as the memory store does:
   * rowCount counts every current row (gone ones included, they are listed too); lastRun is the
   * newest run by queuedAt desc, id desc, whatever its status.
   */
  const stored = async (doc: DatasetDoc): Promise<StoredDataset> => {
    const rowCount = await rows.countDocuments({ datasetId: doc._id });
    const last = await runs.findOne(
      { datasetId: doc._id },
      { sort: newestRunsFirst, projection: { _id: 1, status: 1, completedAt: 1 } },
    );
    return { record: datasetFromDoc(doc), rowCount, lastRun: last ? runSummaryFromDoc(last) : null };
  };

  return {
    createOwner: (owner) =>
      mongo.guarded("createOwner", { [indexNames.ownerName]: () => conflicts.ownerExists(owner.name) }, async () => {
        await owners.insertOne(ownerToDoc(owner));
      }),

    findOwnerByName: (name) =>
      mongo.run("findOwnerByName", async () => {
        const doc = await owners.findOne({ name });
        return doc ? Option.some(ownerFromDoc(doc)) : Option.none();
      }),

    // Memory replaces a key stored under the same hash; so does this (an upsert on _id).
    addApiKey: (key) =>
      mongo.run("addApiKey", async () => {
        const { _id, ...rest } = apiKeyToDoc(key);
        await apiKeys.replaceOne({ _id }, rest, { upsert: true });
      }),

    findApiKey: (hash) =>
      mongo.run("findApiKey", async () => {
        const key = await apiKeys.findOne({ _id: hash });
        if (!key) return Option.none();
        // The owner and its credit account (the balance Credits reads) at once: both are keyed by the owner id.
        const [owner, account] = await Promise.all([
          owners.findOne({ _id: key.ownerId }),
          accounts.findOne({ _id: key.ownerId }),
        ]);
        return owner
          ? Option.some({ key: apiKeyFromDoc(key), owner: ownerFromDoc(owner), balance: account?.balance ?? 0 })
          : Option.none();
      }),

    listApiKeys: (ownerId) =>
      !isUuid(ownerId)
        ? Effect.succeed([])
        : mongo.run("listApiKeys", async () =>
            (
              await apiKeys
                .find({ ownerId: toUuid(ownerId) })
                .sort({ createdAt: 1 })
                .toArray()
            ).map(apiKeyFromDoc),
          ),

    revokeApiKey: (ownerId, id) =>
      !isUuid(ownerId) || !isUuid(id)
        ? Effect.succeed(false)
        : mongo.run(
            "revokeApiKey",
            async () => (await apiKeys.deleteOne({ ownerId: toUuid(ownerId), keyId: toUuid(id) })).deletedCount > 0,
          ),

    markApiKeyUsed: (hash, at) =>
      mongo.run("markApiKeyUsed", async () => {
        await apiKeys.updateOne({ _id: hash }, { $set: { lastUsedAt: new Date(at) } });
      }),

    // The dataset with its bot, recipe v1 and schema v1 is one document: one insert is all or
    // nothing on its own, so no transaction is needed. The unique (ownerId, name) index guards names.
    insertDataset: (record) =>
      mongo.guarded(
        "insertDataset",
        { [indexNames.datasetOwnerName]: () => conflicts.nameTaken(record.name) },
        async () => {
          await datasets.insertOne(datasetToDoc(record));
        },
      ),

    getDataset: (ownerId, id) =>
      !isUuid(ownerId) || !isUuid(id)
        ? Effect.succeed(Option.none())
        : mongo.run("getDataset", async () => {
            const doc = await datasets.findOne({ _id: toUuid(id), ownerId: toUuid(ownerId) });
            return doc ? Option.some(await stored(doc)) : Option.none();
          }),

    listDatasets: (ownerId, { after, limit }) =>
      !isUuid(ownerId) || isEmptyLimit(limit)
        ? Effect.succeed([])
        : mongo.run("listDatasets", async () => {
            const docs = await datasets
              .find(datasetsPage(ownerId, after))
              .sort(newestDatasetsFirst)
              .limit(limit)
              .toArray();
            const page: StoredDataset[] = [];
            for (const doc of docs) page.push(await stored(doc));
            return page;
          }),

    // Compare-and-set on revision in the filter: nothing matched means another update won (or
    // the dataset is gone). $set leaves the revision counter (lastSequence) alone. The stale
    // check comes first as in memory: a filter that matches nothing cannot violate the name index.
    updateDataset: (next) =>
      !isUuid(next.id)
        ? Effect.fail(conflicts.staleDataset())
        : mongo.guarded(
            "updateDataset",
            { [indexNames.datasetOwnerName]: () => conflicts.nameTaken(next.name) },
            async () => {
              const result = await datasets.updateOne(
                { _id: toUuid(next.id), revision: next.revision - 1 },
                { $set: datasetFields(next) },
              );
              if (result.matchedCount === 0) throw new ConflictSignal(conflicts.staleDataset());
            },
          ),

    listActiveRoutines: () =>
      mongo.run("listActiveRoutines", async () => {
        const docs = await datasets
          .find(activeRoutines, { projection: { _id: 1, ownerId: 1, scheduleState: 1 } })
          .toArray();
        return docs.flatMap((doc) =>
          doc.scheduleState?.status === "active"
            ? [
                decodeRoutine({
                  datasetId: fromUuid(doc._id),
                  ownerId: fromUuid(doc.ownerId),
                  cron: doc.scheduleState.cron,
                }),
              ]
            : [],
        );
      }),
  };
};
