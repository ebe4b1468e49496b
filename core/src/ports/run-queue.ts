import * as Context from "effect/Context";
import type * as Effect from "effect/Effect";
import * as Schema from "effect/Schema";
import type * as Scope from "effect/Scope";
import type { QueueUnavailable } from "../errors.js";
import { DatasetId, OwnerId, RunId } from "../schema/ids.js";
import { RunKind } from "../schema/research.js";

/**
 * A run job: the run record is stored first; the job only points at it. A schema, so a durable
 * queue decodes the jobs it stored instead of casting them.
 */
export const RunJob = Schema.Struct({
  runId: RunId,
  datasetId: DatasetId,
  /** `research` for a model-assisted run; absent means deterministic (jobs queued before research). */
  kind: Schema.optional(RunKind),
  /**
   * The run's owner, for fair scheduling: a queue serves owners in turn rather than first come
   * first served, so one owner's burst cannot delay everyone else. Absent on jobs enqueued before
   * it existed; those share one turn.
   */
  ownerId: Schema.optional(OwnerId),
});
export type RunJob = typeof RunJob.Type;

/**
 * Delivers run jobs to workers. Delivery is at least once: a job may arrive twice or again after
 * a crash, and the engine makes that harmless (it claims the run and guards acceptance on the
 * run's state). Adapters: @gleaner/memory (in process), @gleaner/agenda (durable).
 */
/** A recurring routine: run the dataset on its cron schedule (also what a store lists as active). */
export const Routine = Schema.Struct({ datasetId: DatasetId, ownerId: OwnerId, cron: Schema.String });
export type Routine = typeof Routine.Type;

/** One firing of a routine, at the occurrence time it was due. */
export interface RoutineTick extends Routine {
  readonly firedAt: string;
}

/**
 * A wake-up for a dataset's webhook deliveries, due at `dueAt`. It carries no message: the outbox
 * in Storage is the record, so a lost or duplicated job costs only latency (workers also pick up
 * pending messages when they start and on every poll).
 */
export const WebhookDeliveryJob = Schema.Struct({
  datasetId: DatasetId,
  /** ISO time the job is due; now when absent. */
  dueAt: Schema.optional(Schema.String),
});
export type WebhookDeliveryJob = typeof WebhookDeliveryJob.Type;

export interface RunQueueService {
  /** Durably enqueues a job; QueueUnavailable when the queue cannot take it now. */
  readonly enqueue: (job: RunJob) => Effect.Effect<void, QueueUnavailable>;
  /**
   * Consumes jobs with at most `concurrency` in flight until the scope closes. `redelivered` tells
   * the handler the job was delivered before (so a `running` run may be reclaimed). Closing the
   * scope stops taking jobs and waits for the ones in flight.
   */
  readonly consume: (
    concurrency: number,
    handler: (job: RunJob, redelivered: boolean) => Effect.Effect<void>,
  ) => Effect.Effect<void, never, Scope.Scope>;
  /**
   * Creates or replaces the dataset's routine. Occurrences are computed from the current time
   * (rules/cron.ts), so a routine set again after a restart fires at its next occurrence and
   * never replays the ones it missed.
   */
  readonly setRoutine: (routine: Routine) => Effect.Effect<void, QueueUnavailable>;
  /** Cancels the dataset's routine (no-op when it has none). */
  readonly removeRoutine: (datasetId: DatasetId) => Effect.Effect<void>;
  /** Schedules a dataset's webhook deliveries (at most once per dataset and due time is enough). */
  readonly enqueueWebhookDelivery: (job: WebhookDeliveryJob) => Effect.Effect<void, QueueUnavailable>;
  /** Consumes webhook delivery jobs, at most `concurrency` at a time, until the scope closes. */
  readonly consumeWebhookDeliveries: (
    concurrency: number,
    handler: (job: WebhookDeliveryJob) => Effect.Effect<void>,
  ) => Effect.Effect<void, never, Scope.Scope>;
  /** Optional readiness probe (`/readyz`): succeeds when the queue's backend answers. */
  readonly ping?: Effect.Effect<void, QueueUnavailable>;
  /** Fires due routines into `handler` until the scope closes. */
  readonly consumeRoutines: (
    handler: (tick: RoutineTick) => Effect.Effect<void>,
  ) => Effect.Effect<void, never, Scope.Scope>;
}

export class RunQueue extends Context.Tag("@gleaner/core/RunQueue")<RunQueue, RunQueueService>() {}
