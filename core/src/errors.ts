import * as Schema from "effect/Schema";

/** One problem with a request, located by a JSON pointer (`/source/fields/0/read`) or a query name. */
export const ErrorDetail = Schema.Struct({ path: Schema.String, message: Schema.String });
export type ErrorDetail = typeof ErrorDetail.Type;

/**
 * Every error a use case can return. Each carries the machine-readable `code` a client sees; the
 * host maps the tag to an HTTP status (see hosts/koa/src/http/errors.ts) and adds nothing else.
 */
export class ValidationError extends Schema.TaggedError<ValidationError>()("ValidationError", {
  message: Schema.String,
  details: Schema.Array(ErrorDetail),
}) {
  readonly code = "validation_error";
}

export class BadRequest extends Schema.TaggedError<BadRequest>()("BadRequest", {
  message: Schema.String,
  details: Schema.optional(Schema.Array(ErrorDetail)),
}) {
  readonly code = "bad_request";
}

export class Unauthorized extends Schema.TaggedError<Unauthorized>()("Unauthorized", {
  message: Schema.String,
}) {
  readonly code = "unauthorized";
}

export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", {
  resource: Schema.String,
  id: Schema.String,
}) {
  readonly code = "not_found";
  override get message(): string {
    return `No ${this.resource} with id ${this.id} exists for this owner.`;
  }
}

/** 409. `code` is specific where it helps a client act: `name_taken`, `stale_revision`, `run_in_progress`… */
export class Conflict extends Schema.TaggedError<Conflict>()("Conflict", {
  code: Schema.String,
  message: Schema.String,
}) {}

/**
 * The conflicts a store reports, one wording for every adapter (the port names which method
 * answers which). A store builds them from here rather than spelling its own.
 */
export const conflicts = {
  ownerExists: (name: string) => new Conflict({ code: "owner_exists", message: `An owner named "${name}" exists.` }),
  nameTaken: (name: string) =>
    new Conflict({ code: "name_taken", message: `You already have a dataset named "${name}".` }),
  staleDataset: () =>
    new Conflict({ code: "stale_dataset", message: "The dataset changed while this update ran; retry it." }),
  runInProgress: () =>
    new Conflict({ code: "run_in_progress", message: "A run of this dataset is already queued or running." }),
  duplicateRequest: () => new Conflict({ code: "duplicate_request", message: "This requestId was already used." }),
  staleRevision: () =>
    new Conflict({ code: "stale_revision", message: "The row has a newer revision than expectedRevisionId." }),
  runNotHeld: (status: string) =>
    new Conflict({ code: "run_not_held", message: `The run is ${status}; only a held run can be accepted.` }),
  runStale: (why: string) =>
    new Conflict({ code: "run_stale", message: `${why} Its outcome no longer applies: run the dataset again.` }),
} as const;

export class InsufficientCredits extends Schema.TaggedError<InsufficientCredits>()("InsufficientCredits", {
  balance: Schema.Number,
  required: Schema.Number,
}) {
  readonly code = "insufficient_credits";
  override get message(): string {
    return `This needs ${this.required} credit(s); the balance is ${this.balance}.`;
  }
}

export class QueueUnavailable extends Schema.TaggedError<QueueUnavailable>()("QueueUnavailable", {
  message: Schema.String,
}) {
  readonly code = "queue_unavailable";
}

/** 422: a research run was asked for, but this server has no language model configured. */
export class ResearchUnavailable extends Schema.TaggedError<ResearchUnavailable>()("ResearchUnavailable", {
  message: Schema.String,
  details: Schema.Array(ErrorDetail),
}) {
  readonly code = "research_unavailable";
}

/** 503 from the readiness check: a dependency (storage, queue) does not answer yet. */
export class NotReady extends Schema.TaggedError<NotReady>()("NotReady", {
  message: Schema.String,
  details: Schema.Array(ErrorDetail),
}) {
  readonly code = "not_ready";
}

/**
 * A storage or infrastructure failure: the request may be retried; nothing was half-written.
 * `unavailable` marks the database as unreachable right now (connection refused or dropped, server
 * shutting down): clients get 503 `storage_unavailable` and should retry; anything else is a 500.
 */
export class StorageFailure extends Schema.TaggedError<StorageFailure>()("StorageFailure", {
  message: Schema.String,
  cause: Schema.optional(Schema.Unknown),
  unavailable: Schema.optionalWith(Schema.Boolean, { default: () => false }),
}) {
  get code(): "storage_unavailable" | "internal_error" {
    return this.unavailable ? "storage_unavailable" : "internal_error";
  }
}

/**
 * A failure meaning the database is unreachable now (retry later), as opposed to a fault.
 * Recognised by its tag, not `instanceof`: a process can hold two copies of this module (a host
 * loaded through `require` whose adapters arrive by dynamic `import`, or two installed versions),
 * and a dropped connection must still read as "retry" rather than fail the run.
 */
export const isStorageUnavailable = (error: unknown): boolean => {
  const failure = error as { readonly _tag?: unknown; readonly unavailable?: unknown } | null;
  return typeof failure === "object" && failure?._tag === "StorageFailure" && failure.unavailable === true;
};

/** Per-owner limits (concurrent runs, runs per hour, datasets): 429 with Retry-After. */
export class RateLimited extends Schema.TaggedError<RateLimited>()("RateLimited", {
  message: Schema.String,
  retryAfterSeconds: Schema.Number,
}) {
  readonly code = "rate_limited";
}

export type ApiError =
  | ValidationError
  | BadRequest
  | Unauthorized
  | NotFound
  | Conflict
  | InsufficientCredits
  | QueueUnavailable
  | ResearchUnavailable
  | NotReady
  | StorageFailure
  | RateLimited;

/** Every error code the API can answer with, for the OpenAPI document and clients. */
export const errorCodes = [
  "bad_request",
  "unauthorized",
  "insufficient_credits",
  "not_found",
  "conflict",
  "owner_exists",
  "name_taken",
  "stale_dataset",
  "schema_version_conflict",
  "run_in_progress",
  "stale_revision",
  "duplicate_request",
  "request_id_reused",
  "validation_error",
  "internal_error",
  "queue_unavailable",
  "storage_unavailable",
  "rate_limited",
  "payload_too_large",
  "unsupported_media_type",
  "method_not_allowed",
  "research_unavailable",
  "not_ready",
  "run_not_held",
  "run_stale",
] as const;
