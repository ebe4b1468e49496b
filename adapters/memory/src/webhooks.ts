import type { OutboxMessage, WebhookStorage } from "@gleaner/core";
import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import type { MemoryState } from "./state.js";

/** The oldest pending message of each webhook in the dataset: later ones wait behind it. */
const headsOf = (state: MemoryState, datasetId: string): OutboxMessage[] => {
  const heads = new Map<string, OutboxMessage>();
  for (const message of state.webhookMessages.values()) {
    if (message.datasetId === datasetId && message.status === "pending" && !heads.has(message.webhookId))
      heads.set(message.webhookId, message);
  }
  return [...heads.values()];
};

export const makeMemoryWebhooks = (state: MemoryState): WebhookStorage => ({
  insertWebhook: (webhook) => Effect.sync(() => void state.webhooks.set(webhook.id, webhook)),
  listWebhooks: (ownerId) => Effect.sync(() => state.webhooksOf(ownerId)),
  getWebhook: (ownerId, id) =>
    Effect.sync(() => Option.filter(Option.fromNullable(state.webhooks.get(id)), (w) => w.ownerId === ownerId)),
  deleteWebhook: (ownerId, id) =>
    Effect.sync(() => {
      if (state.webhooks.get(id)?.ownerId !== ownerId) return false;
      state.webhooks.delete(id);
      for (const [messageId, message] of state.webhookMessages)
        if (message.webhookId === id) state.webhookMessages.delete(messageId);
      state.dropWebhookAttempts((a) => a.webhookId === id);
      return true;
    }),
  listWebhookAttempts: (webhookId, limit) =>
    Effect.sync(() =>
      state.webhookAttempts
        .filter((a) => a.webhookId === webhookId)
        .reverse()
        .slice(0, limit),
    ),
  claimWebhookMessage: (datasetId, now, leaseUntil, skip = []) =>
    Effect.sync(() => {
      const due = headsOf(state, datasetId).find(
        (m) => m.nextAttemptAt !== null && m.nextAttemptAt <= now && !skip.includes(m.webhookId),
      );
      const webhook = due && state.webhooks.get(due.webhookId);
      if (!due || !webhook) return Option.none();
      const message = { ...due, nextAttemptAt: leaseUntil };
      state.webhookMessages.set(message.id, message);
      return Option.some({ message, webhook });
    }),
  releaseWebhookMessage: (messageId, dueAt) =>
    Effect.sync(() => {
      const message = state.webhookMessages.get(messageId);
      if (message?.status === "pending") state.webhookMessages.set(messageId, { ...message, nextAttemptAt: dueAt });
    }),
  recordWebhookAttempt: (attempt, next) =>
    Effect.sync(() => {
      const message = state.webhookMessages.get(attempt.messageId);
      if (!message) return;
      state.webhookMessages.set(message.id, { ...message, ...next, attempts: message.attempts + 1 });
      state.webhookAttempts.push(attempt);
    }),
  pruneWebhookMessages: (createdBefore, limit) =>
    Effect.sync(() => {
      const doomed = new Set<string>();
      for (const message of state.webhookMessages.values()) {
        if (doomed.size >= limit) break;
        if (message.status !== "pending" && message.createdAt < createdBefore) doomed.add(message.id);
      }
      for (const id of doomed) state.webhookMessages.delete(id);
      state.dropWebhookAttempts((a) => doomed.has(a.messageId));
      return doomed.size;
    }),
  hasDueWebhookMessages: (datasetId, now) =>
    Effect.sync(() =>
      [...state.webhookMessages.values()].some(
        (m) =>
          m.datasetId === datasetId && m.status === "pending" && m.nextAttemptAt !== null && m.nextAttemptAt <= now,
      ),
    ),
  pendingWebhookDatasets: () =>
    Effect.sync(() => {
      // One pass over the outbox: the first pending message of each (dataset, webhook) is its head,
      // and a dataset is due at its earliest head.
      const heads = new Set<string>();
      const due = new Map<string, { datasetId: OutboxMessage["datasetId"]; dueAt: string }>();
      for (const message of state.webhookMessages.values()) {
        if (message.status !== "pending") continue;
        const head = `${message.datasetId}\u0000${message.webhookId}`;
        if (heads.has(head)) continue;
        heads.add(head);
        const earliest = due.get(message.datasetId);
        if (message.nextAttemptAt !== null && (!earliest || message.nextAttemptAt < earliest.dueAt))
          due.set(message.datasetId, { datasetId: message.datasetId, dueAt: message.nextAttemptAt });
      }
      return [...due.values()];
    }),
});
