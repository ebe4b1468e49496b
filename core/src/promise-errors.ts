import type { ApiError, ErrorDetail, errorCodes, InsufficientCredits, RateLimited } from "./errors.js";
import { httpStatusOf } from "./rules/http-status.js";

/**
 * The Promise API's failures: one class per kind of error the HTTP API answers, each carrying the
 * same `code` and `status`, so an integrator narrows with `instanceof` (or on `code`) instead of
 * reading strings. The table at the end maps each core error to its class; nothing else decides.
 */

/** Every code the HTTP API answers with (core's one list). */
export type ErrorCode = (typeof errorCodes)[number];

/** A failure as the HTTP API would answer it: `code` is its error code, `status` its HTTP status. */
export class GleanerError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  /** The problems found, each located by a JSON pointer or a query name (422 and 400). */
  readonly details: ReadonlyArray<ErrorDetail>;
  constructor(error: ApiError) {
    super(error.message);
    this.name = new.target.name;
    this.code = error.code as ErrorCode;
    this.status = httpStatusOf(error);
    this.details = "details" in error ? (error.details ?? []) : [];
  }
}

/** 400: a malformed query or parameter. */
export class BadRequestError extends GleanerError {
  declare readonly code: "bad_request";
}
/** 401 (never raised in-process: there are no keys). */
export class UnauthorizedError extends GleanerError {
  declare readonly code: "unauthorized";
}
/** 404: no such dataset, run or row for this owner. */
export class NotFoundError extends GleanerError {
  declare readonly code: "not_found";
}
/** 409: `name_taken`, `stale_revision`, `run_in_progress`, `run_not_held`, … (the code says which). */
export class ConflictError extends GleanerError {}
/** 422: the input does not validate (`validation_error`, `details` naming each field) or a research run cannot be served. */
export class ValidationFailedError extends GleanerError {
  declare readonly code: "validation_error" | "research_unavailable";
}
/** 429: a per-owner limit; retry after `retryAfterSeconds`. */
export class RateLimitedError extends GleanerError {
  declare readonly code: "rate_limited";
  readonly retryAfterSeconds: number;
  constructor(error: RateLimited) {
    super(error);
    this.retryAfterSeconds = error.retryAfterSeconds;
  }
}
/** 402: the owner's balance cannot pay for what was asked. */
export class InsufficientCreditsError extends GleanerError {
  declare readonly code: "insufficient_credits";
  readonly balance: number;
  readonly required: number;
  constructor(error: InsufficientCredits) {
    super(error);
    this.balance = error.balance;
    this.required = error.required;
  }
}
/** 503: storage or the queue is away right now; retry. */
export class UnavailableError extends GleanerError {
  declare readonly code: "queue_unavailable" | "storage_unavailable" | "not_ready";
}
/** 500: a fault; nothing was half-written. */
export class InternalError extends GleanerError {
  declare readonly code: "internal_error";
}

type ClassFor<E> = new (error: E) => GleanerError;
const classByTag: { readonly [T in ApiError["_tag"]]: ClassFor<Extract<ApiError, { _tag: T }>> } = {
  BadRequest: BadRequestError,
  Unauthorized: UnauthorizedError,
  NotFound: NotFoundError,
  Conflict: ConflictError,
  ValidationError: ValidationFailedError,
  ResearchUnavailable: ValidationFailedError,
  RateLimited: RateLimitedError,
  InsufficientCredits: InsufficientCreditsError,
  QueueUnavailable: UnavailableError,
  NotReady: UnavailableError,
  StorageFailure: UnavailableError,
};

/** The class an API error is thrown as (a store failure that is not an outage is an InternalError). */
export const toGleanerError = (error: ApiError): GleanerError => {
  if (error._tag === "StorageFailure" && !error.unavailable) return new InternalError(error);
  const Kind = classByTag[error._tag] as ClassFor<ApiError>;
  return new Kind(error);
};

/**
 * `runs.wait` gave up before the run finished: not an API failure (the run goes on), so not a
 * GleanerError. `lastStatus` is what the run was when the wait stopped; wait again or read runs.get.
 */
export class RunWaitTimeoutError extends Error {
  constructor(
    readonly runId: string,
    readonly lastStatus: string,
    readonly timeoutMs: number,
  ) {
    super(`Run ${runId} is still ${lastStatus} after ${timeoutMs} ms of waiting; it goes on.`);
    this.name = "RunWaitTimeoutError";
  }
}
