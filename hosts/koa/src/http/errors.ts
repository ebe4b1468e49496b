import { type ApiError, boundedText, type ErrorDetail, httpStatusOf, isApiError } from "@gleaner/core";

/** The error body of every 4xx/5xx answer (docs/decisions/0001-http-conventions.md). */
export interface ErrorBody {
  readonly error: {
    readonly code: string;
    readonly message: string;
    readonly details?: ReadonlyArray<ErrorDetail>;
    readonly truncatedDetails?: number;
  };
}

/** A body with thousands of problems gets the first few and a count, not a reply larger than the request. */
export const maxDetails = 20;

/**
 * Every error body fits in 16 KiB whatever the request (decision 0041): the message and each detail
 * are cut with a note of their size (they may echo a value the client sent), at most `maxDetails`.
 * 2 KiB + 20 × (200 + 400) bytes and the JSON around them stay under it.
 */
export const maxErrorBodyBytes = 16 * 1024;
const maxMessageBytes = 2048;
const maxDetailPathBytes = 200;
const maxDetailMessageBytes = 400;

/** An error the host answers with; thrown inside Koa middleware and rendered by `errorMiddleware`. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: ReadonlyArray<ErrorDetail>,
    /** Headers the answer carries (Retry-After on 429 and 503). */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }

  get body(): ErrorBody {
    const details = this.details;
    const message = boundedText(this.message, maxMessageBytes);
    if (!details) return { error: { code: this.code, message } };
    const shown = details.slice(0, maxDetails).map((detail) => ({
      path: boundedText(detail.path, maxDetailPathBytes),
      message: boundedText(detail.message, maxDetailMessageBytes),
    }));
    const more = details.length - shown.length;
    return {
      error: {
        code: this.code,
        message,
        details: shown,
        ...(more > 0 ? { truncatedDetails: more } : {}),
      },
    };
  }

  static fromApiError(error: ApiError): HttpError {
    if (!isApiError(error)) return Object.assign(internalError(), { cause: error });
    if (error._tag === "RateLimited") {
      return new HttpError(429, error.code, error.message, undefined, {
        "Retry-After": String(error.retryAfterSeconds),
      });
    }
    if (error._tag === "StorageFailure" && error.unavailable) {
      // The cause (driver text) is logged, never shown: it can name hosts and users.
      const message = "The database is unavailable right now; try again shortly.";
      return Object.assign(new HttpError(503, error.code, message, undefined, { "Retry-After": "5" }), {
        cause: error,
      });
    }
    const details = "details" in error ? error.details : undefined;
    // StorageFailure messages may carry driver text: never show it to clients.
    const message = error._tag === "StorageFailure" ? "Something went wrong on our side; try again." : error.message;
    return Object.assign(new HttpError(httpStatusOf(error), error.code, message, details), {
      cause: error._tag === "StorageFailure" ? error : undefined,
    });
  }
}

export const internalError = () => new HttpError(500, "internal_error", "Something went wrong on our side; try again.");
