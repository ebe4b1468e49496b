import * as Context from "effect/Context";
import type { RunKind } from "../schema/research.js";

/**
 * What an operator watches a running Gleaner by: counts and durations of runs, page reads, credits,
 * holds and webhook deliveries, told as they happen. Each is a plain synchronous call (incrementing
 * a counter must never cost a run anything). The Koa host provides one on prom-client when
 * GLEANER_METRICS_PORT is set; without one nothing is counted.
 */
export interface MetricsService {
  /** A worker took a run (its queue wait: startedAt − queuedAt). */
  readonly runStarted: (run: { readonly kind: RunKind; readonly queueWaitMs: number }) => void;
  /** A run ended: succeeded, failed, blocked or held, after `durationMs` since it started (null when unknown). */
  readonly runFinished: (run: {
    readonly kind: RunKind;
    readonly status: string;
    readonly durationMs: number | null;
  }) => void;
  /** One page read: `read`, `not_modified` (a 304 to a kept read), or `failed` with its reason. */
  readonly pageRead: (outcome: "read" | "not_modified" | "failed", reason: string | null) => void;
  readonly creditsCharged: (credits: number) => void;
  readonly runHeld: (reason: "drift" | "credits") => void;
  /** One webhook delivery attempt: `delivered` (2xx), `rejected` (another status) or `failed` (no answer). */
  readonly webhookDelivery: (outcome: "delivered" | "rejected" | "failed", durationMs: number) => void;
}

export const noMetrics: MetricsService = {
  runStarted: () => {},
  runFinished: () => {},
  pageRead: () => {},
  creditsCharged: () => {},
  runHeld: () => {},
  webhookDelivery: () => {},
};

export class Metrics extends Context.Reference<Metrics>()("@gleaner/core/Metrics", {
  defaultValue: (): MetricsService => noMetrics,
}) {}
