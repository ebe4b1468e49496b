import type { ApiError } from "../errors.js";

const statusByTag: Record<ApiError["_tag"], number> = {
  ValidationError: 422,
  BadRequest: 400,
  Unauthorized: 401,
  NotFound: 404,
  Conflict: 409,
  InsufficientCredits: 402,
  QueueUnavailable: 503,
  ResearchUnavailable: 422,
  NotReady: 503,
  StorageFailure: 500,
  RateLimited: 429,
};

/**
 * The HTTP status an error is answered with, the same for the HTTP API and the Promise API: a
 * database that is away is 503 (try again), any other store failure 500.
 */
export const httpStatusOf = (error: ApiError): number =>
  error._tag === "StorageFailure" && error.unavailable ? 503 : (statusByTag[error._tag] ?? 500);

/** Whether `error` is one of the API's errors (a tag the table above knows). */
export const isApiError = (error: unknown): error is ApiError =>
  typeof error === "object" && error !== null && (error as { _tag?: string })._tag! in statusByTag;
