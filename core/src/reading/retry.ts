import * as Duration from "effect/Duration";
import * as Effect from "effect/Effect";
import * as Schedule from "effect/Schedule";
import type { ReadFailure } from "../schema/run.js";

/**
 * Bounded retries with exponential backoff and full jitter, only for failures that may pass on their
 * own. A 429's Retry-After is honoured when it is within `maxRetryAfterMs`; a longer one ends the read
 * (retrying sooner than the site asked would only get us blocked).
 */
export interface RetryPolicy {
  /** Attempts in total, the first included. */
  readonly maxAttempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  readonly maxRetryAfterMs: number;
}

export const defaultRetryPolicy: RetryPolicy = {
  maxAttempts: 3,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 30_000,
};

const transientStatuses = new Set([408, 500, 502, 503, 504]);

export const isTransient = (failure: ReadFailure): boolean => {
  switch (failure.reason) {
    case "timeout":
    case "connection_reset":
    case "network":
    case "rate_limited":
      return true;
    case "http_error":
      return failure.status === null || transientStatuses.has(failure.status);
    default:
      return false;
  }
};

/**
 * How long to wait before attempt `attemptsSoFar + 1`, or null when the read should stop here.
 * `random` is injectable so tests can pin the jitter.
 */
export const retryDelayMs = (
  policy: RetryPolicy,
  attemptsSoFar: number,
  failure: ReadFailure,
  retryAfterMs: number | null,
  random: () => number = Math.random,
): number | null => {
  if (attemptsSoFar >= policy.maxAttempts || !isTransient(failure)) return null;
  const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attemptsSoFar - 1));
  const jittered = Math.round(backoff / 2 + (random() * backoff) / 2);
  if (failure.reason === "rate_limited" && retryAfterMs !== null) {
    if (retryAfterMs > policy.maxRetryAfterMs) return null;
    return Math.max(retryAfterMs, jittered);
  }
  return jittered;
};

/** What a retry decision looks at: the failure and the Retry-After the site sent, if any. */
export interface RetryableFailure {
  readonly failure: ReadFailure;
  readonly retryAfterMs: number | null;
}

/**
 * `retryDelayMs` as an Effect Schedule over failed attempts, for `Effect.retry`: the n-th recurrence
 * waits the delay computed for attempt n and the schedule ends where `retryDelayMs` says stop, or
 * earlier when `stopEarly` says the failure belongs to another route.
 */
export const retrySchedule = (
  policy: RetryPolicy,
  stopEarly: (failure: ReadFailure) => boolean = () => false,
  random: () => number = Math.random,
) =>
  Schedule.identity<RetryableFailure>().pipe(
    Schedule.intersect(Schedule.count),
    Schedule.map(([failed, recurrence]) =>
      stopEarly(failed.failure)
        ? null
        : retryDelayMs(policy, recurrence + 1, failed.failure, failed.retryAfterMs, random),
    ),
    Schedule.whileOutput((delay) => delay !== null),
    Schedule.addDelay((delay) => Duration.millis(delay ?? 0)),
  );

/**
 * `Effect.retry(attempt, schedule)`, with the schedule's driver made only once the first attempt has
 * failed. Most page reads succeed at once, and `Effect.retry` builds its driver (its refs and the
 * iteration service it provides) before the first try, about 0.1 ms a read. The attempts, their
 * order, the delays and the result are the same: the driver sees every failure, the first one
 * included, and ends the retries with the last failure as `Effect.retry` does.
 */
export const retryAfterFirstFailure = <A, E, R>(
  attempt: Effect.Effect<A, E, R>,
  schedule: Schedule.Schedule<unknown, E>,
): Effect.Effect<A, E, R> =>
  Effect.catchAll(attempt, (first) =>
    Effect.flatMap(Schedule.driver(schedule), (driver) => {
      const retryAfter = (failure: E): Effect.Effect<A, E, R> =>
        Effect.matchEffect(driver.next(failure), {
          onFailure: () => Effect.fail(failure),
          onSuccess: () => Effect.catchAll(attempt, retryAfter),
        });
      return retryAfter(first);
    }),
  );
