import * as Clock from "effect/Clock";
import * as Effect from "effect/Effect";

/** Now as the API shows it. Time comes from Effect's Clock so tests can run on TestClock. */
/** A Clock reading (epoch milliseconds) as the API shows it. */
export const isoAt = (ms: number): string => new Date(ms).toISOString();

export const nowIso: Effect.Effect<string> = Effect.map(Clock.currentTimeMillis, isoAt);
