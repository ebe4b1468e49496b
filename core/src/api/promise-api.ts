/**
 * Embedding without Effect: Promises, typed inputs and outputs, errors with the HTTP API's codes.
 * Import them from `@gleaner/core`.
 *
 * @module Promise API
 */
export {
  type ChangeListOptions,
  createGleaner,
  type DiagnosticsOptions,
  type Gleaner,
  type GleanerOptions,
  type QueryOptions,
  type RowListOptions,
} from "../promise-api.js";
export {
  BadRequestError,
  ConflictError,
  type ErrorCode,
  GleanerError,
  InsufficientCreditsError,
  InternalError,
  NotFoundError,
  RateLimitedError,
  RunWaitTimeoutError,
  UnauthorizedError,
  UnavailableError,
  ValidationFailedError,
} from "../promise-errors.js";
