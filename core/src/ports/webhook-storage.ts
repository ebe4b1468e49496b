import type * as Effect from "effect/Effect";
import type * as Option from "effect/Option";
import type { StorageFailure } from "../errors.js";
import type { OutboxMessage, WebhookAttempt, WebhookRecord } from "../webhook-domain.js";
import type { DatasetId, OwnerId } from "../schema/ids.js";

/**
 * The webhook part of the Storage port (declared here to keep storage.ts readable; the adapters
 * implement it on the same Storage service, because the outbox is written inside acceptRun and
 * finishRun's transactions). Messages are written there only, by core's outboxMessagesForRun.
 */
export interface WebhookStorage {
  readonly insertWebhook: (webhook: WebhookRecord) => Effect.Effect<void, StorageFailure>;
  /** The owner's webhooks, oldest first. */
  readonly listWebhooks: (ownerId: OwnerId) => Effect.Effect<ReadonlyArray<WebhookRecord>, StorageFailure>;
  readonly getWebhook: (ownerId: OwnerId, id: string) => Effect.Effect<Option.Option<WebhookRecord>, StorageFailure>;
  /** Removes the webhook with its undelivered messages and attempts; false when the owner has no such webhook. */
  readonly deleteWebhook: (ownerId: OwnerId, id: string) => Effect.Effect<boolean, StorageFailure>;
  /** The webhook's most recent attempts, newest first. */
  readonly listWebhookAttempts: (
    webhookId: string,
    limit: number,
  ) => Effect.Effect<ReadonlyArray<WebhookAttempt>, StorageFailure>;
  /**
   * Takes the dataset's next deliverable message: among each webhook's oldest pending message
   * (later ones wait behind it, so a receiver sees one dataset's events in order), the oldest whose
   * nextAttemptAt <= now, leaving out the heads of the webhooks in `skip` (their receivers are busy
   * or backing off). Atomically moves its nextAttemptAt to `leaseUntil`, so no other worker takes it
   * meanwhile and a worker that dies leaves it due again once the lease ends.
   */
  readonly claimWebhookMessage: (
    datasetId: DatasetId,
    now: string,
    leaseUntil: string,
    skip?: ReadonlyArray<string>,
  ) => Effect.Effect<
    Option.Option<{ readonly message: OutboxMessage; readonly webhook: WebhookRecord }>,
    StorageFailure
  >;
  /**
   * Puts a claimed message back, due at `dueAt`, with no attempt counted: its receiver was busy.
   * Nothing happens to a message that is no longer pending.
   */
  readonly releaseWebhookMessage: (messageId: string, dueAt: string) => Effect.Effect<void, StorageFailure>;
  /** Records an attempt and the message's new state (attempts + 1; settled or due again at `nextAttemptAt`). */
  readonly recordWebhookAttempt: (
    attempt: WebhookAttempt,
    next: { readonly status: OutboxMessage["status"]; readonly nextAttemptAt: string | null },
  ) => Effect.Effect<void, StorageFailure>;
  /**
   * Whether the dataset holds a pending message due by `now`: after a run job, whether its
   * deliveries need a wake-up at all (an owner without matching webhooks gets none).
   */
  readonly hasDueWebhookMessages: (datasetId: DatasetId, now: string) => Effect.Effect<boolean, StorageFailure>;
  /**
   * Removes up to `limit` settled messages (delivered or failed) whose event is older than
   * `createdBefore`, with their attempts; answers how many messages went. Pending ones stay.
   */
  readonly pruneWebhookMessages: (createdBefore: string, limit: number) => Effect.Effect<number, StorageFailure>;
  /** Datasets with pending messages and the earliest nextAttemptAt of each: what a worker picks up when it starts or polls. */
  readonly pendingWebhookDatasets: () => Effect.Effect<
    ReadonlyArray<{ readonly datasetId: DatasetId; readonly dueAt: string }>,
    StorageFailure
  >;
}
