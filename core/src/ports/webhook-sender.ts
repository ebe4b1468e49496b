import * as Context from "effect/Context";
import type * as Effect from "effect/Effect";
import type { DeliveryOutcome } from "../rules/webhook-delivery.js";
import type { WebhookPayload } from "../schema/webhook-payloads.js";

/** What one delivery sends: `id` is the `webhook-id`, the same on every retry of one event. */
export interface WebhookSendRequest {
  readonly url: string;
  readonly secret: string;
  readonly id: string;
  readonly payload: WebhookPayload;
}

/**
 * Sends one signed delivery (Standard Webhooks) and says what came of it; never fails: a network
 * error or timeout is an outcome, which core's rules then retry or not. Interrupted (its process
 * closing), it stops waiting on the receiver at once; the message stays leased and goes again. The Koa host provides it
 * (hosts/koa/src/webhooks/sender.ts), SSRF-guarded like source reads.
 */
export interface WebhookSenderService {
  readonly send: (request: WebhookSendRequest) => Effect.Effect<DeliveryOutcome>;
}

export class WebhookSender extends Context.Tag("@gleaner/core/WebhookSender")<WebhookSender, WebhookSenderService>() {}
