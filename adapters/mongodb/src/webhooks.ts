import {
  DatasetId,
  OutboxMessage,
  outboxMessagesForRun,
  type RunChanges,
  type RunRecord,
  WebhookAttempt,
  WebhookRecord,
  type WebhookStorage,
} from "@gleaner/core";
import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import type { ClientSession, UUID } from "mongodb";
import {
  fromDate,
  fromDateOrNull,
  fromUuid,
  fromUuidOrNull,
  isUuid,
  toDate,
  toDateOrNull,
  toUuid,
  toUuidOrNull,
} from "./bson.js";
import { decodedOrThrow } from "./decoded.js";
import type { Mongo } from "./mongo.js";
import type { Collections } from "./schema.js";
import type { WebhookAttemptDoc, WebhookDoc, WebhookMessageDoc } from "./collection-documents.js";

const webhookToDoc = (w: WebhookRecord): WebhookDoc => ({
  _id: toUuid(w.id),
  ownerId: toUuid(w.ownerId),
  url: w.url,
  events: [...w.events],
  datasetId: toUuidOrNull(w.datasetId),
  secret: w.secret,
  createdAt: toDate(w.createdAt),
});
// Documents are decoded with core's webhook schemas, never cast: a malformed one fails the read
// with a StorageFailure naming it and the field, and a malformed payload is not signed and sent.
const decodeWebhook = decodedOrThrow(WebhookRecord, "webhook");
const webhookFromDoc = (d: WebhookDoc): WebhookRecord =>
  decodeWebhook({
    id: fromUuid(d._id),
    ownerId: fromUuid(d.ownerId),
    url: d.url,
    events: d.events,
    datasetId: fromUuidOrNull(d.datasetId),
    secret: d.secret,
    createdAt: fromDate(d.createdAt),
  });
const decodeMessage = decodedOrThrow(OutboxMessage, "webhook message");
const messageFromDoc = (d: WebhookMessageDoc): OutboxMessage =>
  decodeMessage({
    id: d._id,
    webhookId: fromUuid(d.webhookId),
    datasetId: fromUuid(d.datasetId),
    payload: d.payload,
    status: d.status,
    attempts: d.attempts,
    nextAttemptAt: fromDateOrNull(d.nextAttemptAt),
    createdAt: fromDate(d.createdAt),
  });
const decodeAttempt = decodedOrThrow(WebhookAttempt, "webhook attempt");
const attemptFromDoc = ({ _id: _ignored, ...d }: WebhookAttemptDoc & { _id?: unknown }): WebhookAttempt =>
  decodeAttempt({
    ...d,
    webhookId: fromUuid(d.webhookId),
    nextRetryAt: fromDateOrNull(d.nextRetryAt),
    attemptedAt: fromDate(d.attemptedAt),
  });
const decodeDatasetId = decodedOrThrow(DatasetId, "webhook message's dataset id");

/**
 * Writes a finished run's outbox messages in the caller's transaction (acceptRun, finishRun):
 * core says which; the run's outcome and its events commit together or not at all.
 */
export const writeOutbox = async (
  collections: Collections,
  session: ClientSession,
  run: RunRecord,
  changes: RunChanges | null,
  heldFor: Parameters<typeof outboxMessagesForRun>[3] = null,
): Promise<void> => {
  const webhooks = await collections.webhooks
    .find({ ownerId: toUuid(run.ownerId) }, { session })
    .sort({ createdAt: 1, _id: 1 })
    .toArray();
  const messages = outboxMessagesForRun(run, webhooks.map(webhookFromDoc), changes, heldFor);
  if (messages.length === 0) return;
  await collections.webhookMessages.bulkWrite(
    messages.map((m, index) => ({
      updateOne: {
        filter: { _id: m.id },
        update: {
          $setOnInsert: {
            webhookId: toUuid(m.webhookId),
            datasetId: toUuid(m.datasetId),
            position: Date.parse(m.createdAt) * 1000 + index,
            payload: m.payload,
            status: m.status,
            attempts: m.attempts,
            nextAttemptAt: toDateOrNull(m.nextAttemptAt),
            createdAt: toDate(m.createdAt),
          },
        },
        upsert: true,
      },
    })),
    { session, ordered: true },
  );
};

/** Each webhook's oldest pending message of the matched ones (later ones wait behind it). */
const heads = (match: object) => [
  { $match: { ...match, status: "pending" } },
  { $sort: { position: 1 } },
  { $group: { _id: { datasetId: "$datasetId", webhookId: "$webhookId" }, head: { $first: "$$ROOT" } } },
  { $replaceWith: "$head" },
];

export const makeWebhookMethods = (mongo: Mongo): WebhookStorage => {
  const { webhooks, webhookMessages, webhookAttempts } = mongo.collections;
  return {
    insertWebhook: (w) => mongo.run("insertWebhook", async () => void (await webhooks.insertOne(webhookToDoc(w)))),
    listWebhooks: (ownerId) =>
      !isUuid(ownerId)
        ? Effect.succeed([])
        : mongo.run("listWebhooks", async () =>
            (
              await webhooks
                .find({ ownerId: toUuid(ownerId) })
                .sort({ createdAt: 1, _id: 1 })
                .toArray()
            ).map(webhookFromDoc),
          ),
    getWebhook: (ownerId, id) =>
      !isUuid(ownerId) || !isUuid(id)
        ? Effect.succeed(Option.none())
        : mongo.run("getWebhook", async () =>
            Option.map(
              Option.fromNullable(await webhooks.findOne({ _id: toUuid(id), ownerId: toUuid(ownerId) })),
              webhookFromDoc,
            ),
          ),
    // The webhook, its messages and its attempts together.
    deleteWebhook: (ownerId, id) =>
      !isUuid(ownerId) || !isUuid(id)
        ? Effect.succeed(false)
        : mongo.transaction("deleteWebhook", async (session) => {
            const deleted = await webhooks.deleteOne({ _id: toUuid(id), ownerId: toUuid(ownerId) }, { session });
            if (deleted.deletedCount === 0) return false;
            await webhookMessages.deleteMany({ webhookId: toUuid(id) }, { session });
            await webhookAttempts.deleteMany({ webhookId: toUuid(id) }, { session });
            return true;
          }),
    listWebhookAttempts: (webhookId, limit) =>
      !isUuid(webhookId)
        ? Effect.succeed([])
        : mongo.run("listWebhookAttempts", async () =>
            (
              await webhookAttempts
                .find({ webhookId: toUuid(webhookId) })
                .sort({ attemptedAt: -1, attempt: -1 })
                .limit(limit)
                .toArray()
            ).map(attemptFromDoc),
          ),
    // The lease is a conditional findOneAndUpdate: of two workers, the second finds it moved and takes nothing.
    claimWebhookMessage: (datasetId, now, leaseUntil, skip = []) =>
      !isUuid(datasetId)
        ? Effect.succeed(Option.none())
        : mongo.run("claimWebhookMessage", async () => {
            const [due] = await webhookMessages
              .aggregate<WebhookMessageDoc>([
                ...heads({ datasetId: toUuid(datasetId) }),
                { $match: { nextAttemptAt: { $lte: toDate(now) }, webhookId: { $nin: skip.map(toUuid) } } },
                { $sort: { position: 1 } },
                { $limit: 1 },
              ])
              .toArray();
            if (!due) return Option.none();
            const claimed = await webhookMessages.findOneAndUpdate(
              { _id: due._id, status: "pending", nextAttemptAt: { $lte: toDate(now) } },
              { $set: { nextAttemptAt: toDate(leaseUntil) } },
              { returnDocument: "after" },
            );
            const webhook = claimed && (await webhooks.findOne({ _id: claimed.webhookId }));
            return claimed && webhook
              ? Option.some({ message: messageFromDoc(claimed), webhook: webhookFromDoc(webhook) })
              : Option.none();
          }),
    releaseWebhookMessage: (messageId, dueAt) =>
      mongo.run("releaseWebhookMessage", async () => {
        await webhookMessages.updateOne(
          { _id: messageId, status: "pending" },
          { $set: { nextAttemptAt: toDate(dueAt) } },
        );
      }),
    recordWebhookAttempt: (a, next) =>
      mongo.transaction("recordWebhookAttempt", async (session) => {
        const updated = await webhookMessages.updateOne(
          { _id: a.messageId },
          { $set: { status: next.status, nextAttemptAt: toDateOrNull(next.nextAttemptAt) }, $inc: { attempts: 1 } },
          { session },
        );
        // The webhook was deleted meanwhile: its messages went with it, and so does this attempt.
        if (updated.matchedCount === 0) return;
        await webhookAttempts.insertOne(
          {
            ...a,
            webhookId: toUuid(a.webhookId),
            nextRetryAt: toDateOrNull(a.nextRetryAt),
            attemptedAt: toDate(a.attemptedAt),
          },
          { session },
        );
      }),
    // Settled messages by age (webhook_messages_settled), then their attempts (webhook_attempts_message).
    pruneWebhookMessages: (createdBefore, limit) =>
      mongo.transaction("pruneWebhookMessages", async (session) => {
        const doomed = await webhookMessages
          .find(
            { status: { $in: ["delivered", "failed"] }, createdAt: { $lt: toDate(createdBefore) } },
            { session, projection: { _id: 1 }, limit },
          )
          .toArray();
        const ids = doomed.map((m) => m._id);
        if (ids.length === 0) return 0;
        await webhookAttempts.deleteMany({ messageId: { $in: ids } }, { session });
        await webhookMessages.deleteMany({ _id: { $in: ids } }, { session });
        return ids.length;
      }),
    // Served by webhook_messages_pending (datasetId first, pending documents only).
    hasDueWebhookMessages: (datasetId, now) =>
      !isUuid(datasetId)
        ? Effect.succeed(false)
        : mongo.run(
            "hasDueWebhookMessages",
            async () =>
              (await webhookMessages.findOne(
                { datasetId: toUuid(datasetId), status: "pending", nextAttemptAt: { $lte: toDate(now) } },
                { projection: { _id: 1 } },
              )) !== null,
          ),
    pendingWebhookDatasets: () =>
      mongo.run("pendingWebhookDatasets", async () =>
        (
          await webhookMessages
            .aggregate<{ _id: UUID; dueAt: Date }>(
              [
                ...heads({}),
                { $group: { _id: "$datasetId", dueAt: { $min: "$nextAttemptAt" } } },
                // A large backlog sorts past the 100 MB in-memory limit rather than failing the poll.
              ],
              { allowDiskUse: true },
            )
            .toArray()
        ).map((d) => ({ datasetId: decodeDatasetId(fromUuid(d._id)), dueAt: fromDate(d.dueAt) })),
      ),
  };
};
