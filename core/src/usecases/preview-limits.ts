import * as Clock from "effect/Clock";
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import { RateLimited } from "../errors.js";
import type { OwnerId } from "../schema/ids.js";

/**
 * Previews and suggestions read pages for free, so each owner may ask for a bounded number a
 * minute, or Gleaner would be a free proxy. Counted in the serving process (nothing is written for
 * a preview): a host with N processes allows up to N times as many. A host sets the number from
 * GLEANER_PREVIEWS_PER_MINUTE.
 */
export interface PreviewLimitsConfig {
  readonly perMinute: number;
}

const windowMs = 60_000;

/** The previews each owner asked for in the last minute, oldest first; owners with none are dropped. */
export class PreviewWindow {
  private readonly asked = new Map<string, number[]>();
  constructor(readonly config: PreviewLimitsConfig) {}

  /** Counts one preview now, or answers how many seconds until the owner may ask again. */
  take(ownerId: string, now: number): number | null {
    const times = (this.asked.get(ownerId) ?? []).filter((t) => t > now - windowMs);
    if (times.length >= this.config.perMinute) {
      this.asked.set(ownerId, times);
      return Math.max(1, Math.ceil((times[0]! + windowMs - now) / 1000));
    }
    times.push(now);
    this.asked.set(ownerId, times);
    // Bounded by the owners active in the last minute: the others' entries go on every sweep.
    if (this.asked.size > 1000) {
      for (const [owner, list] of this.asked) if (list[list.length - 1]! <= now - windowMs) this.asked.delete(owner);
    }
    return null;
  }

  /** How many owners are remembered (for the bound's test). */
  get owners(): number {
    return this.asked.size;
  }
}

export class PreviewLimits extends Context.Reference<PreviewLimits>()("@gleaner/core/PreviewLimits", {
  defaultValue: (): PreviewWindow => new PreviewWindow({ perMinute: 30 }),
}) {}

/** Fails with RateLimited (429 + Retry-After) past the owner's previews for the minute. */
export const takePreview = Effect.fn("PreviewLimits.take")(function* (ownerId: OwnerId) {
  const window = yield* PreviewLimits;
  const wait = window.take(ownerId, yield* Clock.currentTimeMillis);
  if (wait !== null) {
    return yield* new RateLimited({
      message: `You asked for ${window.config.perMinute} previews or suggestions in the last minute, the most allowed; try again in ${wait} s.`,
      retryAfterSeconds: wait,
    });
  }
});
