import * as Clock from "effect/Clock";
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import { RateLimited } from "../errors.js";
import { Storage } from "../ports/storage.js";
import type { OwnerId } from "../schema/ids.js";
import { isoAt } from "../time.js";

/**
 * Per-owner limits that keep one owner from monopolising the workers or the store: failed runs
 * cost nothing, so without them one credit buys endless fetching. A host sets them from its
 * configuration (GLEANER_OWNER_MAX_*); without one these defaults apply. They are checked before
 * the write, so concurrent requests can overshoot a limit by their number: a fairness bound, not
 * a quota ledger.
 */
export interface OwnerLimitsConfig {
  /** Runs `queued` or `running` at once (each dataset has at most one). */
  readonly maxActiveRuns: number;
  /** Runs created in any rolling hour, whatever became of them. */
  readonly maxRunsPerHour: number;
  readonly maxDatasets: number;
  /**
   * Webhooks at once: each event is sent to every matching webhook, so without a bound one owner's
   * run would have Gleaner post to any number of receivers. Default `defaultMaxWebhooks`.
   */
  readonly maxWebhooks?: number;
  /** API keys at once: any key may mint more, so a leaked one could otherwise mint without end. Default `defaultMaxApiKeys`. */
  readonly maxApiKeys?: number;
}

export const defaultMaxWebhooks = 25;
export const defaultMaxApiKeys = 25;

export class OwnerLimits extends Context.Reference<OwnerLimits>()("@gleaner/core/OwnerLimits", {
  defaultValue: (): OwnerLimitsConfig => ({ maxActiveRuns: 10, maxRunsPerHour: 120, maxDatasets: 200 }),
}) {}

const hourMs = 60 * 60 * 1000;
/** A run slot frees when a run ends, which Gleaner cannot predict: ask the client to look again soon. */
const activeRunRetrySeconds = 30;
/** Datasets, webhooks and keys are not freed by waiting; the hour tells a client not to hammer. */
const datasetRetrySeconds = 3600;

/** Fails with RateLimited (429 + Retry-After) when the owner may not create another run now. */
export const checkRunLimits = Effect.fn("OwnerLimits.checkRunLimits")(function* (ownerId: OwnerId) {
  const limits = yield* OwnerLimits;
  const now = yield* Clock.currentTimeMillis;
  const activity = yield* (yield* Storage).ownerActivity(ownerId, isoAt(now - hourMs));
  if (activity.activeRuns >= limits.maxActiveRuns) {
    return yield* new RateLimited({
      message: `You have ${activity.activeRuns} runs queued or running, the most allowed at once (${limits.maxActiveRuns}); wait for one to finish.`,
      retryAfterSeconds: activeRunRetrySeconds,
    });
  }
  if (activity.runsSince >= limits.maxRunsPerHour) {
    const oldest = activity.oldestRunSince === null ? now : Date.parse(activity.oldestRunSince);
    return yield* new RateLimited({
      message: `You created ${activity.runsSince} runs in the last hour, the most allowed (${limits.maxRunsPerHour}).`,
      retryAfterSeconds: Math.max(1, Math.ceil((oldest + hourMs - now) / 1000)),
    });
  }
});

/**
 * Fails with RateLimited when the owner already has the most of a kind allowed (a listed kind is bounded
 * by the limit itself, so counting it stays cheap). `what` names the kind in the message.
 */
const checkCount = (count: number, most: number, what: string) =>
  count < most
    ? Effect.void
    : Effect.fail(
        new RateLimited({
          message: `You have ${count} ${what}, the most allowed (${most}); delete one first.`,
          retryAfterSeconds: datasetRetrySeconds,
        }),
      );

/** Fails with RateLimited when the owner already has the most datasets allowed. */
export const checkDatasetLimit = Effect.fn("OwnerLimits.checkDatasetLimit")(function* (ownerId: OwnerId) {
  const limits = yield* OwnerLimits;
  const now = yield* Clock.currentTimeMillis;
  const activity = yield* (yield* Storage).ownerActivity(ownerId, isoAt(now));
  yield* checkCount(activity.datasets, limits.maxDatasets, "datasets");
});

/** Fails with RateLimited when the owner already has the most webhooks allowed. */
export const checkWebhookLimit = Effect.fn("OwnerLimits.checkWebhookLimit")(function* (ownerId: OwnerId) {
  const limits = yield* OwnerLimits;
  const webhooks = yield* (yield* Storage).listWebhooks(ownerId);
  yield* checkCount(webhooks.length, limits.maxWebhooks ?? defaultMaxWebhooks, "webhooks");
});

/** Fails with RateLimited when the owner already has the most API keys allowed. */
export const checkApiKeyLimit = Effect.fn("OwnerLimits.checkApiKeyLimit")(function* (ownerId: OwnerId) {
  const limits = yield* OwnerLimits;
  const keys = yield* (yield* Storage).listApiKeys(ownerId);
  yield* checkCount(keys.length, limits.maxApiKeys ?? defaultMaxApiKeys, "API keys");
});
