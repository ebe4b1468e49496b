import { Clock, Effect } from "effect";

/** Now as the API shows it. Time comes from Effect's Clock so tests can run on TestClock. */
export const nowIso: Effect.Effect<string> = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms).toISOString());
