import { type ReadFailureReason, UnsafeTargetError } from "@gleaner/core";
import { BadEncodingError, BodyTooLargeError } from "./transport.js";

const timeoutCodes = new Set([
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "ETIMEDOUT",
  "ESOCKETTIMEDOUT",
]);
const resetCodes = new Set(["ECONNRESET", "EPIPE", "ECONNABORTED", "UND_ERR_SOCKET", "ERR_STREAM_PREMATURE_CLOSE"]);

/** The error and everything it wraps (`cause`, AggregateError members), outermost first. */
const chain = (error: unknown): unknown[] => {
  const seen: unknown[] = [];
  const queue = [error];
  while (queue.length > 0 && seen.length < 20) {
    const next = queue.shift();
    if (next === undefined || next === null || seen.includes(next)) continue;
    seen.push(next);
    if (typeof next === "object") {
      if ("cause" in next) queue.push((next as { cause: unknown }).cause);
      if (next instanceof AggregateError) queue.push(...next.errors);
    }
  }
  return seen;
};

export interface TransportFailure {
  readonly reason: ReadFailureReason;
  readonly message: string;
}

/**
 * Names a thrown transport error as a readFailure reason. `deadlineHit` says our own attempt deadline
 * fired (an abort that is a timeout, not a cancellation).
 */
export const classifyTransportError = (error: unknown, deadlineHit: boolean): TransportFailure => {
  const errors = chain(error);
  const find = <T>(guard: (candidate: unknown) => candidate is T): T | undefined => errors.find(guard) as T | undefined;
  const unsafe = find((e): e is UnsafeTargetError => e instanceof UnsafeTargetError);
  if (unsafe) return { reason: "unsafe_target", message: unsafe.message };
  const tooLarge = find((e): e is BodyTooLargeError => e instanceof BodyTooLargeError);
  if (tooLarge) return { reason: "limit_exceeded", message: tooLarge.message };
  const badEncoding = find((e): e is BadEncodingError => e instanceof BadEncodingError);
  if (badEncoding) return { reason: "invalid_content", message: badEncoding.message };
  if (deadlineHit) return { reason: "timeout", message: "the read took longer than the attempt deadline" };
  const codes = errors.map((e) =>
    typeof e === "object" && e !== null ? String((e as { code?: unknown }).code ?? "") : "",
  );
  const names = errors.map((e) => (e instanceof Error ? e.name : ""));
  const text = errors.map((e) => (e instanceof Error ? e.message : String(e))).join("; ");
  if (codes.some((code) => timeoutCodes.has(code)) || names.includes("TimeoutError"))
    return { reason: "timeout", message: text };
  if (codes.some((code) => resetCodes.has(code)) || /other side closed|socket hang up/i.test(text)) {
    return { reason: "connection_reset", message: text };
  }
  if (names.includes("AbortError")) return { reason: "cancelled", message: "the read was cancelled" };
  return { reason: "network", message: text || "the connection failed" };
};
