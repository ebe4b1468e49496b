import { expect } from "chai";
import * as Clock from "effect/Clock";
import * as Duration from "effect/Duration";
import * as Effect from "effect/Effect";
import * as Either from "effect/Either";
import { describe, it } from "mocha";
import { type RetryableFailure, retryAfterFirstFailure, retrySchedule } from "../../src/reading/retry.js";
import type { ReadFailure, ReadFailureReason } from "../../src/schema/run.js";

/** A small seeded generator (mulberry32): the same cases on every run. */
const seeded = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

const reasons: ReadonlyArray<[ReadFailureReason, number | null]> = [
  ["timeout", null],
  ["network", null],
  ["connection_reset", null],
  ["rate_limited", 429],
  ["http_error", 503],
  ["http_error", 404],
  ["http_error", null],
  ["forbidden", 403],
  ["challenge", 403],
];

type Outcome = { readonly ok: true; readonly value: string } | ({ readonly ok: false } & RetryableFailure);

/** What a retry did: its result, how many attempts it made and the delays it slept, in order. */
const observe = (
  retry: (attempt: Effect.Effect<string, RetryableFailure>) => Effect.Effect<string, RetryableFailure>,
  outcomes: ReadonlyArray<Outcome>,
) => {
  const slept: number[] = [];
  const live = Clock.make();
  // The live clock, except that sleeping records the delay and returns at once.
  const recording: Clock.Clock = Object.assign(Object.create(live) as Clock.Clock, {
    sleep: (duration: Duration.Duration) => Effect.sync(() => void slept.push(Duration.toMillis(duration))),
  });
  let attempts = 0;
  const attempt = Effect.suspend(() => {
    const outcome = outcomes[Math.min(attempts++, outcomes.length - 1)]!;
    return outcome.ok
      ? Effect.succeed(outcome.value)
      : Effect.fail({ failure: outcome.failure, retryAfterMs: outcome.retryAfterMs });
  });
  const result = Effect.runSync(Effect.either(retry(attempt)).pipe(Effect.withClock(recording)));
  return { result: Either.isRight(result) ? { ok: result.right } : { failed: result.left }, attempts, slept };
};

describe("reading: retrying only after a failed first attempt", () => {
  it("makes the attempts, sleeps the delays and ends with the result Effect.retry does (3 000 generated cases)", () => {
    const random = seeded(17);
    let retried = 0;
    for (let n = 0; n < 3000; n++) {
      const policy = {
        maxAttempts: 1 + Math.floor(random() * 5),
        baseDelayMs: Math.floor(random() * 1000),
        maxDelayMs: Math.floor(random() * 10_000),
        maxRetryAfterMs: Math.floor(random() * 40_000),
      };
      const outcomes: Outcome[] = [];
      const length = 1 + Math.floor(random() * 6);
      for (let i = 0; i < length; i++) {
        if (random() < 0.25) {
          outcomes.push({ ok: true, value: `page after ${i} failures` });
          break;
        }
        const [reason, status] = reasons[Math.floor(random() * reasons.length)]!;
        const failure: ReadFailure = { reason, status, finalUrl: "https://s.example" };
        outcomes.push({ ok: false, failure, retryAfterMs: random() < 0.5 ? null : Math.floor(random() * 60_000) });
      }
      // Some routes stop early on some reasons (a blocked direct read goes to the proxy).
      const stopOn = new Set(reasons.filter(() => random() < 0.2).map(([reason]) => reason));
      const stopEarly = (failure: ReadFailure) => stopOn.has(failure.reason);
      // Both schedules draw the same jitter: a generator started from the same seed for each.
      const jitterSeed = Math.floor(random() * 2 ** 31);
      const schedule = () => retrySchedule(policy, stopEarly, seeded(jitterSeed));
      const expected = observe((attempt) => Effect.retry(attempt, schedule()), outcomes);
      const actual = observe((attempt) => retryAfterFirstFailure(attempt, schedule()), outcomes);
      expect(actual, JSON.stringify({ policy, outcomes, stopOn: [...stopOn] })).to.deep.equal(expected);
      if (expected.attempts > 1) retried++;
    }
    // The cases do retry (with delays), not only succeed or stop at once.
    expect(retried).to.be.greaterThan(500);
  });

  it("takes a first attempt that succeeds as the result, without a step of the schedule", () => {
    let attempts = 0;
    let stepped = 0;
    const schedule = retrySchedule({ maxAttempts: 3, baseDelayMs: 0, maxDelayMs: 0, maxRetryAfterMs: 0 }, () => {
      stepped++;
      return false;
    });
    const page = Effect.runSync(
      retryAfterFirstFailure(
        Effect.sync(() => ++attempts),
        schedule,
      ),
    );
    expect({ page, attempts, stepped }).to.deep.equal({ page: 1, attempts: 1, stepped: 0 });
  });
});
