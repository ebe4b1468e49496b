import type { ReadFailureReason } from "@gleaner/core";

export interface TransportFailure {
  readonly reason: ReadFailureReason;
  readonly message: string;
}

/** Chromium's net:: error codes (and Playwright's own) by the readFailure reason they mean. */
const byCode: ReadonlyArray<readonly [RegExp, ReadFailureReason]> = [
  [/Timeout \d+ms exceeded|TimeoutError|ERR_TIMED_OUT|ETIMEDOUT|timed out/i, "timeout"],
  [/ERR_TOO_MANY_REDIRECTS|Max redirect count exceeded/i, "limit_exceeded"],
  [
    /ERR_CONNECTION_RESET|ERR_EMPTY_RESPONSE|ERR_CONNECTION_CLOSED|ERR_CONNECTION_ABORTED|ECONNRESET|socket hang up/i,
    "connection_reset",
  ],
  [/Download is starting|ERR_ABORTED.*download|ERR_INVALID_RESPONSE|ERR_CONTENT_DECODING_FAILED/i, "invalid_content"],
  [/ERR_BLOCKED_BY_CLIENT|ERR_ACCESS_DENIED|ERR_UNSAFE_PORT|ERR_UNSAFE_REDIRECT/i, "unsafe_target"],
];

/** Playwright says this when the browser process went away under a read. */
export const isBrowserGone = (error: unknown): boolean =>
  /Target page, context or browser has been closed|Browser has been closed|browser has disconnected|Target closed|crashed/i.test(
    String((error as Error)?.message ?? error),
  );

/** Names a failed navigation or HTTP fetch. Anything not recognised is `network`: the site was not reached. */
export const transportFailure = (error: unknown): TransportFailure => {
  const text = String((error as Error)?.message ?? error).split("\n")[0] ?? "";
  for (const [pattern, reason] of byCode) if (pattern.test(text)) return { reason, message: text };
  return { reason: "network", message: text || "the connection failed" };
};
