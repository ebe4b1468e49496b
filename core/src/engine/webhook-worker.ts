import * as Clock from "effect/Clock";
import * as Duration from "effect/Duration";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as Option from "effect/Option";
import { RunQueue, type WebhookDeliveryJob } from "../ports/run-queue.js";
import { Storage } from "../ports/storage.js";
import { WebhookSender } from "../ports/webhook-sender.js";
import {
  type DeliveryOutcome,
  isDelivered,
  isRetryable,
  nextRetryDelayMs,
  type WebhookRetryPolicy,
  webhookRetentionMs,
  webhookRetry,
} from "../rules/webhook-delivery.js";
import type { WebhookAttempt } from "../webhook-domain.js";
import { ReceiverGate } from "./receiver-gate.js";
import type { DatasetId } from "../schema/ids.js";
import { isoAt } from "../time.js";

export interface WebhookWorkerOptions {
  /** Datasets delivered at once (each dataset's messages go one at a time, in order). Default 4. */
  readonly concurrency?: number;
  /** How often pending messages are looked for, besides the jobs that announce them. Default 30 s. */
  readonly pollMs?: number;
  /** How long a taken message stays reserved for its worker; past it another worker may send it. Default 2 min. */
  readonly leaseMs?: number;
  /** Core's backoff (webhookRetry) unless given; tests shorten it. */
  readonly retry?: WebhookRetryPolicy;
  /** How often settled messages past retention are pruned (also once at start). Default 1 h. */
  readonly pruneEveryMs?: number;
}

const wallClock = Clock.make();

const attemptOf = (outcome: DeliveryOutcome) =>
  outcome.kind === "answered"
    ? { responseStatus: outcome.status, error: null }
    : { responseStatus: null, error: `${outcome.reason}: ${outcome.detail}` };

/** Schedules the dataset's deliveries again at `dueAt`; a lost job costs latency only (the poll finds it). */
const deliverLater = (datasetId: DatasetId, dueAt: string) =>
  Effect.flatMap(RunQueue, (queue) =>
    queue
      .enqueueWebhookDelivery({ datasetId, dueAt })
      .pipe(
        Effect.catchAll((error) =>
          Effect.logWarning(`webhook delivery not scheduled (the poll will find it): ${error.message}`),
        ),
      ),
  );

/**
 * Sends a dataset's due messages until none is left: each is taken with a lease (so two workers
 * never send one message at once, and a dead worker's message comes due again), sent, and its
 * attempt recorded with the next state core's rules give: delivered, retried later (another job
 * is scheduled for then) or given up. A webhook's later messages wait behind its unsettled one.
 * Messages to a receiver the `gate` holds (one in flight, or backing off) are left for later, so
 * the job moves on to other receivers and datasets instead of waiting on a dead one.
 */
export const deliverWebhooks = (
  datasetId: DatasetId,
  options: WebhookWorkerOptions = {},
  gate: ReceiverGate = new ReceiverGate(options.retry ?? webhookRetry),
) =>
  Effect.gen(function* () {
    const storage = yield* Storage;
    const sender = yield* WebhookSender;
    const leaseMs = options.leaseMs ?? 120_000;
    while (true) {
      const now = yield* Clock.currentTimeMillis;
      const skip = gate.skipped(now);
      const taken = yield* storage.claimWebhookMessage(datasetId, isoAt(now), isoAt(now + leaseMs), skip);
      if (Option.isNone(taken)) {
        // Messages left for held receivers: this dataset is delivered again when they free.
        if (skip.length > 0) gate.wait(datasetId, skip);
        return;
      }
      const { message, webhook } = taken.value;
      const receiver = gate.receiverOf(webhook);
      if (gate.blocked(receiver, now)) {
        // Learned only now that its receiver is held: back to due, and the next claim skips it.
        yield* storage.releaseWebhookMessage(message.id, isoAt(now));
        continue;
      }
      gate.take(receiver);
      let settled: DeliveryOutcome | null = null;
      // The one wait a closing process does not sit out: the message stays leased and goes again.
      const outcome = yield* Effect.interruptible(
        sender.send({ url: webhook.url, secret: webhook.secret, id: message.id, payload: message.payload }),
      ).pipe(
        Effect.tap((answer) => {
          settled = answer;
        }),
        Effect.ensuring(
          Effect.flatMap(Clock.currentTimeMillis, (at) => Effect.sync(() => gate.settle(receiver, settled, at))),
        ),
      );
      const attempt = message.attempts + 1;
      const delay = isRetryable(outcome) ? nextRetryDelayMs(attempt, Math.random, options.retry ?? webhookRetry) : null;
      const sentAt = yield* Clock.currentTimeMillis;
      const nextRetryAt = delay === null ? null : isoAt(sentAt + Math.max(1, delay));
      const status = isDelivered(outcome) ? "delivered" : nextRetryAt ? "retrying" : "failed";
      const record: WebhookAttempt = {
        messageId: message.id,
        webhookId: webhook.id,
        eventType: message.payload.type,
        attempt,
        status,
        ...attemptOf(outcome),
        durationMs: outcome.durationMs,
        nextRetryAt: status === "retrying" ? nextRetryAt : null,
        attemptedAt: isoAt(sentAt),
      };
      yield* storage.recordWebhookAttempt(record, {
        status: status === "retrying" ? "pending" : status,
        nextAttemptAt: record.nextRetryAt,
      });
      if (record.nextRetryAt) yield* deliverLater(datasetId, record.nextRetryAt);
    }
  });

/** Announces every dataset whose messages are due now: after a crash or a lost job, nothing stays pending. */
export const announcePendingWebhooks = Effect.gen(function* () {
  const storage = yield* Storage;
  const queue = yield* RunQueue;
  const now = isoAt(yield* Clock.currentTimeMillis);
  const pending = yield* storage.pendingWebhookDatasets();
  for (const { datasetId, dueAt } of pending) {
    if (dueAt <= now) yield* queue.enqueueWebhookDelivery({ datasetId });
  }
});

/** Messages removed per statement: a month of backlog is pruned in short transactions. */
const pruneBatch = 1_000;

/**
 * Prunes the outbox by core's retention: settled messages whose event is older than
 * `webhookRetentionMs` (by Effect's Clock), with their attempts, a batch at a time. Answers how
 * many messages went.
 */
export const pruneWebhookOutbox = Effect.gen(function* () {
  const storage = yield* Storage;
  const createdBefore = isoAt((yield* Clock.currentTimeMillis) - webhookRetentionMs);
  let pruned = 0;
  while (true) {
    const removed = yield* storage.pruneWebhookMessages(createdBefore, pruneBatch);
    pruned += removed;
    if (removed < pruneBatch) return pruned;
  }
});

/**
 * The webhook worker: consumes delivery jobs from the run queue's adapter (memory or Agenda) for as
 * long as the layer lives, polls the outbox at start and every `pollMs`, and prunes it by core's
 * retention at start and every `pruneEveryMs` (every worker does; a second prune finds nothing).
 */
export const WebhookWorkerLive = (
  options: WebhookWorkerOptions = {},
): Layer.Layer<never, never, RunQueue | Storage | WebhookSender> =>
  Layer.scopedDiscard(
    Effect.gen(function* () {
      const queue = yield* RunQueue;
      const context = yield* Effect.context<RunQueue | Storage | WebhookSender>();
      // One gate for every delivery job of this process: receivers are shared across datasets and owners.
      const gate = new ReceiverGate(options.retry ?? webhookRetry);
      const handle = (job: WebhookDeliveryJob) =>
        deliverWebhooks(job.datasetId, options, gate).pipe(
          Effect.provide(context),
          Effect.catchAllCause((cause) =>
            Effect.logWarning("webhook delivery stopped; the lease or poll retries it", cause),
          ),
        );
      yield* queue.consumeWebhookDeliveries(options.concurrency ?? 4, handle);
      const poll = announcePendingWebhooks.pipe(
        Effect.provide(context),
        Effect.catchAllCause((cause) => Effect.logWarning("webhook poll failed", cause)),
        Effect.zipRight(Effect.sleep(Duration.millis(options.pollMs ?? 30_000)).pipe(Effect.withClock(wallClock))),
        Effect.forever,
      );
      yield* Effect.forkScoped(poll);
      const prune = pruneWebhookOutbox.pipe(
        Effect.provide(context),
        Effect.catchAllCause((cause) => Effect.logWarning("webhook outbox prune failed; the next one retries", cause)),
        Effect.zipRight(
          Effect.sleep(Duration.millis(options.pruneEveryMs ?? 3_600_000)).pipe(Effect.withClock(wallClock)),
        ),
        Effect.forever,
      );
      yield* Effect.forkScoped(prune);
    }),
  );

/**
 * Wakes the dataset's deliveries once a run job is done, only when the outbox holds messages due
 * now (the run's, committed with its outcome): a run of an owner without matching webhooks queues
 * no job. A failed check or enqueue costs latency, never an event: the poll finds the messages.
 */
export const announceRunWebhooks = (datasetId: DatasetId) =>
  Effect.gen(function* () {
    const now = isoAt(yield* Clock.currentTimeMillis);
    if (!(yield* (yield* Storage).hasDueWebhookMessages(datasetId, now))) return;
    yield* (yield* RunQueue).enqueueWebhookDelivery({ datasetId });
  }).pipe(
    Effect.catchAll((error) =>
      Effect.logWarning(`webhook delivery not announced (the poll will find it): ${error.message}`),
    ),
  );
