import * as Schema from "effect/Schema";
import { DatasetId, DateTime, OwnerId } from "./schema/ids.js";
import { WebhookPayload } from "./schema/webhook-payloads.js";
import { RegisteredWebhook, WebhookDelivery } from "./schema/webhooks.js";

// Webhook records as stored, derived from the API's schemas like run-domain.ts's records: the
// stores decode what they read back with them (storedDecoder), so an id is checked against its
// brand and a malformed payload is a StorageFailure, never a delivery of a silently wrong body.

/** A registered receiver: the API's webhook plus its owner and the secret that signs deliveries. */
export const WebhookRecord = Schema.Struct({
  ...RegisteredWebhook.fields,
  ownerId: OwnerId,
  /** Shown once, at registration. */
  secret: Schema.String,
});
export type WebhookRecord = typeof WebhookRecord.Type;

export const WebhookMessageStatus = Schema.Literal("pending", "delivered", "failed");
export type WebhookMessageStatus = typeof WebhookMessageStatus.Type;

/**
 * One event for one webhook, in the outbox. `id` is the Standard Webhooks `webhook-id`: derived
 * from the run, the event and the webhook, so it is the same on every retry and a message written
 * twice for one run is one message.
 */
export const OutboxMessage = Schema.Struct({
  id: Schema.String.pipe(Schema.startsWith("msg_")),
  webhookId: Schema.UUID,
  datasetId: DatasetId,
  payload: WebhookPayload,
  status: WebhookMessageStatus,
  /** Attempts made so far. */
  attempts: Schema.Int.pipe(Schema.greaterThanOrEqualTo(0)),
  /** When the next attempt is due (also the lease of a worker delivering it); null once settled. */
  nextAttemptAt: Schema.NullOr(DateTime),
  createdAt: DateTime,
});
export type OutboxMessage = typeof OutboxMessage.Type;

/** One delivery attempt: the API's delivery (GET /v1/webhooks/{id}/deliveries) plus its webhook. */
export const WebhookAttempt = Schema.Struct({ ...WebhookDelivery.fields, webhookId: Schema.UUID });
export type WebhookAttempt = typeof WebhookAttempt.Type;
