import type { RunRecord } from "../run-domain.js";
import type { RunFinishedPayload } from "../schema/webhook-payloads.js";

/**
 * Webhook delivery rules (Standard Webhooks), shared by every delivery adapter: which events exist,
 * which outcomes are retried and when. The payloads' shapes are schemas (schema/webhook-payloads.ts).
 */
export const webhookEventTypes = ["run.finished", "rows.changed", "run.held"] as const;
export type WebhookEventType = (typeof webhookEventTypes)[number];

export const runFinishedPayload = (run: RunRecord, at: string): RunFinishedPayload => ({
  type: "run.finished",
  timestamp: at,
  data: {
    runId: run.id,
    datasetId: run.datasetId,
    status: run.status,
    rowDeltas: run.rowDeltas,
    creditsCharged: run.chargedPages ?? 0,
  },
});

/**
 * How long a settled message (delivered or given up) and its attempts are kept after its event,
 * like SPEC.md's 30-day artifact retention: the deliveries view covers a month, and the outbox
 * does not grow forever. Retries end within ~33 h of the event, so every message has settled long
 * before. A pending message is never pruned.
 */
export const webhookRetentionMs = 30 * 24 * 3_600_000;

/** What one delivery attempt came to. */
export type DeliveryOutcome =
  | { readonly kind: "answered"; readonly status: number; readonly durationMs: number }
  | {
      readonly kind: "failed";
      readonly reason: "network" | "timeout" | "unsafe_target";
      readonly detail: string;
      readonly durationMs: number;
    };

export const isDelivered = (outcome: DeliveryOutcome): boolean =>
  outcome.kind === "answered" && outcome.status >= 200 && outcome.status < 300;

/**
 * Retried: network errors, timeouts, 5xx and 429 (the receiver may recover). Never retried: other
 * 4xx and 3xx (redirects are not followed: the receiver's answer is final), and an unsafe target
 * (the address will not become public by waiting).
 */
export const isRetryable = (outcome: DeliveryOutcome): boolean =>
  outcome.kind === "failed"
    ? outcome.reason !== "unsafe_target"
    : outcome.status === 429 || (outcome.status >= 500 && outcome.status <= 599);

/**
 * Delays before each retry: exponential from 30 s, capped at 6 h, 15 attempts in all. With the
 * jitter below the 14 waits sum to between ~16 h and ~32.5 h, about a day on average.
 */
export const webhookRetry: WebhookRetryPolicy = { maxAttempts: 15, baseMs: 30_000, capMs: 6 * 3_600_000 };

export interface WebhookRetryPolicy {
  readonly maxAttempts: number;
  readonly baseMs: number;
  readonly capMs: number;
}

/**
 * When attempt `attempt` (1 = the first delivery, which failed) is retried, or null when it was the
 * last. "Equal jitter": half the exponential delay is fixed, the other half random, so receivers
 * that failed together do not all come back at the same instant, yet a retry never comes early.
 */
export const nextRetryDelayMs = (
  attempt: number,
  random: () => number = Math.random,
  policy: WebhookRetryPolicy = webhookRetry,
): number | null => {
  if (attempt >= policy.maxAttempts) return null;
  const exponential = Math.min(policy.capMs, policy.baseMs * 2 ** (attempt - 1));
  return Math.round(exponential / 2 + random() * (exponential / 2));
};
