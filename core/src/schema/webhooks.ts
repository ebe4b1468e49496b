import * as Schema from "effect/Schema";
import { webhookEventTypes } from "../rules/webhook-delivery.js";
import { DatasetId, DateTime } from "./ids.js";

export const WebhookEventTypeSchema = Schema.Literal(...webhookEventTypes).annotations({
  description:
    "`run.finished` (every accepted, failed or blocked run), `rows.changed` (a run that wrote revisions) or " +
    "`run.held` (a run held for drift or unpaid credits, which its owner may accept).",
});

/** POST /v1/webhooks (an extension of SPEC.md; docs/decisions/0018-data-out.md). */
export const CreateWebhookRequest = Schema.Struct({
  url: Schema.String.pipe(Schema.maxLength(2048)).annotations({
    description: "Where deliveries are POSTed: http or https, a public address (the sources' SSRF policy).",
  }),
  events: Schema.Array(WebhookEventTypeSchema).pipe(Schema.minItems(1), Schema.maxItems(3)),
  datasetId: Schema.optional(
    DatasetId.annotations({ description: "Only this dataset's events; absent: every dataset of the owner." }),
  ),
}).annotations({ identifier: "CreateWebhookRequest" });
export type CreateWebhookRequest = typeof CreateWebhookRequest.Type;

export const RegisteredWebhook = Schema.Struct({
  id: Schema.UUID,
  url: Schema.String,
  events: Schema.Array(WebhookEventTypeSchema),
  datasetId: Schema.NullOr(DatasetId),
  createdAt: DateTime,
}).annotations({ identifier: "Webhook" });

export const WebhookCreated = Schema.Struct({
  webhook: RegisteredWebhook,
  secret: Schema.String.annotations({
    description: "The Standard Webhooks signing secret (`whsec_…`). Shown only in this answer: store it now.",
  }),
}).annotations({ identifier: "WebhookCreated" });

export const WebhookList = Schema.Struct({ webhooks: Schema.Array(RegisteredWebhook) }).annotations({
  identifier: "WebhookList",
});

export const WebhookDelivery = Schema.Struct({
  messageId: Schema.String.annotations({ description: "The `webhook-id` header: the same on every retry." }),
  eventType: WebhookEventTypeSchema,
  attempt: Schema.Int,
  status: Schema.Literal("delivered", "retrying", "failed"),
  responseStatus: Schema.NullOr(Schema.Int),
  error: Schema.NullOr(Schema.String),
  durationMs: Schema.Int,
  nextRetryAt: Schema.NullOr(DateTime),
  attemptedAt: DateTime,
}).annotations({ identifier: "WebhookDelivery" });

export const WebhookDeliveries = Schema.Struct({ deliveries: Schema.Array(WebhookDelivery) }).annotations({
  identifier: "WebhookDeliveries",
});
