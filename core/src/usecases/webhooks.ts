import * as Clock from "effect/Clock";
import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import { NotFound, ValidationError } from "../errors.js";
import { Storage } from "../ports/storage.js";
import { AllowedTargets } from "../reading/allowed-targets.js";
import { checkUrl } from "../reading/target-policy.js";
import { toWebhookView } from "../rules/webhook-outbox.js";
import { checkWebhookLimit } from "./owner-limits.js";
import type { WebhookRecord } from "../webhook-domain.js";
import { newId, type OwnerId } from "../schema/ids.js";
import type { CreateWebhookRequest } from "../schema/webhooks.js";
import { isoAt } from "../time.js";

/** A fresh signing secret in the Standard Webhooks form: `whsec_` + base64 of 24 random bytes. */
export const newWebhookSecret = (): string =>
  `whsec_${btoa(String.fromCharCode(...globalThis.crypto.getRandomValues(new Uint8Array(24))))}`;

/** Deliveries a GET /v1/webhooks/{id}/deliveries shows: the most recent attempts. */
export const recentDeliveries = 100;

const invalid = (path: string, message: string) =>
  new ValidationError({ message: `${path.slice(1)} ${message}.`, details: [{ path, message }] });

/**
 * Registers a webhook and answers its secret, the only time it is shown. The URL literal passes
 * the sources' SSRF policy now (each delivery checks the resolved address again); a datasetId the
 * owner does not have is a body field in error: 422 naming /datasetId, like any other bad field.
 */
export const createWebhook = (ownerId: OwnerId, request: CreateWebhookRequest) =>
  Effect.gen(function* () {
    const verdict = checkUrl(request.url, yield* AllowedTargets);
    if (!verdict.allowed) return yield* Effect.fail(invalid("/url", `is refused: ${verdict.why}`));
    const storage = yield* Storage;
    if (request.datasetId !== undefined) {
      const dataset = yield* storage.getDataset(ownerId, request.datasetId);
      if (Option.isNone(dataset)) return yield* Effect.fail(invalid("/datasetId", "is not a dataset of this owner"));
    }
    yield* checkWebhookLimit(ownerId);
    const record: WebhookRecord = {
      id: newId(),
      ownerId,
      url: request.url,
      events: [...new Set(request.events)],
      datasetId: request.datasetId ?? null,
      secret: newWebhookSecret(),
      createdAt: isoAt(yield* Clock.currentTimeMillis),
    };
    yield* storage.insertWebhook(record);
    return { webhook: toWebhookView(record), secret: record.secret };
  });

export const listWebhooks = (ownerId: OwnerId) =>
  Effect.map(
    Effect.flatMap(Storage, (storage) => storage.listWebhooks(ownerId)),
    (webhooks) => ({ webhooks: webhooks.map(toWebhookView) }),
  );

export const deleteWebhook = (ownerId: OwnerId, id: string) =>
  Effect.gen(function* () {
    const deleted = yield* (yield* Storage).deleteWebhook(ownerId, id);
    if (!deleted) return yield* Effect.fail(new NotFound({ resource: "webhook", id }));
  });

/** Another owner's webhook is not found, like every other resource. */
export const listWebhookDeliveries = (ownerId: OwnerId, id: string) =>
  Effect.gen(function* () {
    const storage = yield* Storage;
    const webhook = yield* storage.getWebhook(ownerId, id);
    if (Option.isNone(webhook)) return yield* Effect.fail(new NotFound({ resource: "webhook", id }));
    const attempts = yield* storage.listWebhookAttempts(id, recentDeliveries);
    return { deliveries: attempts.map(({ webhookId: _webhookId, ...delivery }) => delivery) };
  });
