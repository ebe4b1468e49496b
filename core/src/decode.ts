import { Effect, Either, ParseResult, Schema } from "effect";
import { BadRequest, type ErrorDetail, ValidationError } from "./errors.js";

const pointer = (path: ReadonlyArray<PropertyKey>): string =>
  path.length === 0 ? "/" : `/${path.map((p) => String(p).replace(/~/g, "~0").replace(/\//g, "~1")).join("/")}`;

/** Every problem of a parse, each located by a JSON pointer, in the order the schema met them. */
export const parseErrorDetails = (error: ParseResult.ParseError): ErrorDetail[] =>
  ParseResult.ArrayFormatter.formatErrorSync(error).map((issue) => ({
    path: pointer(issue.path),
    message: issue._tag === "Unexpected" ? "is not a known field" : issue.message,
  }));

const options = { errors: "all", onExcessProperty: "error" } as const;

/** Decodes a request body: 422 `validation_error` listing every problem, unknown fields included. */
export const decodeBody = <A, I>(schema: Schema.Schema<A, I>, body: unknown): Effect.Effect<A, ValidationError> =>
  Either.match(Schema.decodeUnknownEither(schema, options)(body), {
    onLeft: (error) => {
      const details = parseErrorDetails(error);
      const first = details[0];
      return Effect.fail(
        new ValidationError({
          message: first
            ? `The request body is invalid: ${first.path} ${first.message}.`
            : "The request body is invalid.",
          details,
        }),
      );
    },
    onRight: Effect.succeed,
  });

/**
 * Decodes query parameters: 400 `bad_request`, each detail naming the parameter. A repeated
 * parameter arrives as an array; for single-valued parameters that is itself an error.
 */
export const decodeQuery = <A, I>(
  schema: Schema.Schema<A, I>,
  query: Record<string, unknown>,
): Effect.Effect<A, BadRequest> =>
  Either.match(Schema.decodeUnknownEither(schema, options)(query), {
    onLeft: (error) => {
      const details = parseErrorDetails(error).map((d) => ({
        path: d.path.replace(/^\//, "").split("/")[0] ?? d.path,
        message: d.message,
      }));
      const first = details[0];
      return Effect.fail(
        new BadRequest({
          message: first ? `Query parameter "${first.path}" ${first.message}.` : "The query is invalid.",
          details,
        }),
      );
    },
    onRight: Effect.succeed,
  });
