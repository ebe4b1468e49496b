import { type AllowList, checkUrl, type DeliveryOutcome, type DnsLookup, type WebhookPayload } from "@gleaner/core";
import { guardedConnector } from "@gleaner/http";
import { Webhook } from "standardwebhooks";
import { Agent, request } from "undici";

export interface WebhookSenderConfig {
  /** GLEANER_ALLOW_PRIVATE_TARGETS, the same allow list sources are read with. */
  readonly allow: AllowList;
  readonly lookup: DnsLookup;
  /** Whole attempt: connect, headers and the (discarded) body. A slow receiver cannot hold a worker longer. */
  readonly timeoutMs: number;
  /** Response bytes read before the connection is dropped; the body itself is never used. */
  readonly maxResponseBytes: number;
}

export interface WebhookMessage {
  /** `webhook-id`: the same on every retry of one event, so receivers can de-duplicate. */
  readonly id: string;
  readonly payload: WebhookPayload;
}

const isUnsafe = (error: unknown): boolean =>
  (error as { code?: unknown })?.code === "GLEANER_UNSAFE_TARGET" ||
  (error as { cause?: { code?: unknown } })?.cause?.code === "GLEANER_UNSAFE_TARGET";

const isTimeout = (error: unknown): boolean => {
  const name = (error as { name?: unknown })?.name;
  const code = (error as { code?: unknown })?.code;
  return (
    name === "TimeoutError" ||
    name === "AbortError" ||
    code === "UND_ERR_HEADERS_TIMEOUT" ||
    code === "UND_ERR_BODY_TIMEOUT" ||
    code === "UND_ERR_CONNECT_TIMEOUT"
  );
};

/**
 * Sends one signed delivery (Standard Webhooks: `webhook-id`, `webhook-timestamp`,
 * `webhook-signature`, signed with the `standardwebhooks` package) and says what came of it.
 * The URL passes the sources' SSRF policy twice: its literal here, every resolved address at
 * connect time (the guarded connector pins the checked address). Redirects are never followed.
 */
export const makeWebhookSender = (config: WebhookSenderConfig) => {
  const agent = new Agent({
    connect: guardedConnector(config.allow, config.lookup, { timeout: config.timeoutMs }),
    headersTimeout: config.timeoutMs,
    bodyTimeout: config.timeoutMs,
  });
  /** `stop` (a closing process) ends the wait on the receiver at once, as the timeout does at its deadline. */
  const send = async (
    url: string,
    secret: string,
    message: WebhookMessage,
    stop?: AbortSignal,
  ): Promise<DeliveryOutcome> => {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const verdict = checkUrl(url, config.allow);
    if (!verdict.allowed) return { kind: "failed", reason: "unsafe_target", detail: verdict.why, durationMs: 0 };
    const body = JSON.stringify(message.payload);
    const timestamp = new Date();
    const timeout = AbortSignal.timeout(config.timeoutMs);
    const aborted = new AbortController();
    const abort = () => aborted.abort();
    timeout.addEventListener("abort", abort, { once: true });
    stop?.addEventListener("abort", abort, { once: true });
    const signal = aborted.signal;
    try {
      const answer = await request(url, {
        method: "POST",
        dispatcher: agent,
        signal,
        headers: {
          "content-type": "application/json",
          "user-agent": "Gleaner-Webhooks/1",
          "webhook-id": message.id,
          "webhook-timestamp": String(Math.floor(timestamp.getTime() / 1000)),
          "webhook-signature": new Webhook(secret).sign(message.id, timestamp, body),
        },
        body,
      });
      // The answer's body means nothing to Gleaner: read a little (so the connection can be reused), then drop it.
      await answer.body.dump({ limit: config.maxResponseBytes, signal }).catch(() => {});
      return { kind: "answered", status: answer.statusCode, durationMs: elapsed() };
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      if (isUnsafe(error)) return { kind: "failed", reason: "unsafe_target", detail, durationMs: elapsed() };
      if (isTimeout(error) || timeout.aborted)
        return { kind: "failed", reason: "timeout", detail, durationMs: elapsed() };
      return { kind: "failed", reason: "network", detail, durationMs: elapsed() };
    } finally {
      timeout.removeEventListener("abort", abort);
      stop?.removeEventListener("abort", abort);
    }
  };
  return { send, close: () => agent.close() };
};
