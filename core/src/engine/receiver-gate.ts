import type { DeliveryOutcome, WebhookRetryPolicy } from "../rules/webhook-delivery.js";

/** Receivers remembered per process: enough for every webhook an instance serves, bounded all the same. */
const maxReceivers = 10_000;

/**
 * Webhook receivers as one worker process sees them (decision 0041): one delivery at a time per
 * receiver (the webhook's URL: another path of the same host may be another customer's receiver), and a receiver whose last delivery failed (a timeout, a
 * network error, 5xx or 429) is left alone for a backoff that grows with each failure in a row, so a
 * dead or slow receiver delays only its own events, never another owner's. Process-local: N workers
 * send to one receiver at most N at a time.
 */
export class ReceiverGate {
  private readonly busy = new Set<string>();
  private readonly failing = new Map<string, { readonly inRow: number; readonly until: number }>();
  /** webhook id -> its receiver, learned from the messages claimed. */
  private readonly receivers = new Map<string, string>();
  /** receiver -> datasets with messages left for it: announced once when it frees, never per poll. */
  private readonly waiting = new Map<string, Set<string>>();

  constructor(private readonly backoff: Pick<WebhookRetryPolicy, "baseMs" | "capMs">) {}

  /** The receiver a webhook delivers to: its URL as WHATWG URL normalises it. */
  receiverOf(webhook: { readonly id: string; readonly url: string }): string {
    let receiver: string;
    try {
      receiver = new URL(webhook.url).href;
    } catch {
      receiver = webhook.url;
    }
    if (this.receivers.size >= maxReceivers && !this.receivers.has(webhook.id)) this.receivers.clear();
    this.receivers.set(webhook.id, receiver);
    return receiver;
  }

  /** Whether a delivery to `receiver` must wait: one is in flight, or it is backing off. */
  blocked(receiver: string, now: number): boolean {
    return this.busy.has(receiver) || (this.failing.get(receiver)?.until ?? 0) > now;
  }

  /** The webhooks whose receivers are blocked now: a claim leaves their messages for later. */
  skipped(now: number): string[] {
    return [...this.receivers].flatMap(([webhookId, receiver]) => (this.blocked(receiver, now) ? [webhookId] : []));
  }

  /** Notes that `datasetId` has messages left for the blocked receivers of the `skipped` webhooks. */
  wait(datasetId: string, skipped: ReadonlyArray<string>): void {
    for (const webhookId of skipped) {
      const receiver = this.receivers.get(webhookId);
      if (receiver === undefined) continue;
      const datasets = this.waiting.get(receiver) ?? new Set<string>();
      datasets.add(datasetId);
      this.waiting.set(receiver, datasets);
    }
  }

  /**
   * The datasets waiting on `receiver`, now that a delivery to it settled, and when to deliver
   * them: at once, or when its backoff ends. Each is handed out once.
   */
  released(receiver: string): { readonly datasets: ReadonlyArray<string>; readonly at: number } {
    const datasets = [...(this.waiting.get(receiver) ?? [])];
    this.waiting.delete(receiver);
    return { datasets, at: this.failing.get(receiver)?.until ?? 0 };
  }

  take(receiver: string): void {
    this.busy.add(receiver);
  }

  /** Frees the receiver and backs it off after a failure that says it is not well; a success clears that. */
  settle(receiver: string, outcome: DeliveryOutcome | null, now: number): void {
    this.busy.delete(receiver);
    const unwell =
      outcome === null ||
      (outcome.kind === "failed" && outcome.reason !== "unsafe_target") ||
      (outcome.kind === "answered" && (outcome.status >= 500 || outcome.status === 429));
    if (!unwell) return void this.failing.delete(receiver);
    const inRow = (this.failing.get(receiver)?.inRow ?? 0) + 1;
    const wait = Math.min(this.backoff.capMs, this.backoff.baseMs * 2 ** Math.min(inRow - 1, 20));
    this.failing.set(receiver, { inRow, until: now + wait });
    if (this.failing.size > maxReceivers) {
      for (const [key, value] of this.failing) if (value.until <= now) this.failing.delete(key);
    }
  }
}
