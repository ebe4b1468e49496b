import {
  CreateWebhookRequest,
  createWebhook,
  deleteWebhook,
  listWebhookDeliveries,
  listWebhooks,
  WebhookCreated,
  WebhookDeliveries,
  WebhookList,
} from "@gleaner/core";
import { type Route, route } from "./route.js";

const webhookIdParam = { webhookId: { resource: "webhook", description: "The webhook's id (a UUID)." } };

/** Webhooks: a documented extension (docs/decisions/0018-data-out.md). */
export const webhookRoutes: ReadonlyArray<Route> = [
  route({
    method: "post",
    path: "/v1/webhooks",
    operationId: "createWebhook",
    tag: "Webhooks",
    summary: "Register a webhook",
    description:
      "Registers a receiver for `run.finished`, `rows.changed` and/or `run.held` events of the owner's datasets (or one " +
      "dataset). " +
      "Deliveries are signed per the Standard Webhooks specification (`webhook-id`, `webhook-timestamp`, " +
      "`webhook-signature`) with the secret in this answer, which is never shown again. The URL must be http(s) and " +
      "public (the sources' SSRF policy): 422 naming `/url` otherwise; a `datasetId` the owner does not have is 422 " +
      "naming `/datasetId`. Payloads carry no row data: fetch the window a `rows.changed` names from `/changes`. " +
      "An owner may hold a limited number of webhooks at once (GLEANER_OWNER_MAX_WEBHOOKS, default 25): 429 " +
      "`rate_limited` past it; delete one first.",
    auth: true,
    body: { schema: CreateWebhookRequest, required: true },
    success: { status: 201, description: "The webhook and its signing secret.", schema: WebhookCreated },
    errors: { 429: ["rate_limited"] },
    handle: ({ owner, body }) => createWebhook(owner.id, body),
  }),
  route({
    method: "get",
    path: "/v1/webhooks",
    operationId: "listWebhooks",
    tag: "Webhooks",
    summary: "List webhooks",
    description: "The owner's webhooks, oldest first, without their secrets.",
    auth: true,
    success: { status: 200, description: "The owner's webhooks.", schema: WebhookList },
    handle: ({ owner }) => listWebhooks(owner.id),
  }),
  route({
    method: "delete",
    path: "/v1/webhooks/{webhookId}",
    operationId: "deleteWebhook",
    tag: "Webhooks",
    summary: "Delete a webhook",
    description: "Removes the webhook; its undelivered events are dropped and its delivery history with it.",
    auth: true,
    pathParams: webhookIdParam,
    success: { status: 204, description: "Deleted.", schema: null },
    handle: ({ owner, params }) => deleteWebhook(owner.id, params.webhookId),
  }),
  route({
    method: "get",
    path: "/v1/webhooks/{webhookId}/deliveries",
    operationId: "listWebhookDeliveries",
    tag: "Webhooks",
    summary: "List a webhook's recent deliveries",
    description:
      "The most recent delivery attempts (at most 100), newest first: the event's `webhook-id`, the receiver's status " +
      "code or the network error, the duration, and when a retry is due. Retries follow exponential backoff with " +
      "jitter for about a day on network errors, timeouts, 5xx and 429; other 4xx are final.",
    auth: true,
    pathParams: webhookIdParam,
    success: { status: 200, description: "Recent attempts, newest first.", schema: WebhookDeliveries },
    handle: ({ owner, params }) => listWebhookDeliveries(owner.id, params.webhookId),
  }),
];
