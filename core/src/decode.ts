import * as Effect from "effect/Effect";
import * as Either from "effect/Either";
import * as ParseResult from "effect/ParseResult";
import * as Schema from "effect/Schema";
import { BadRequest, type ErrorDetail, StorageFailure, ValidationError } from "./errors.js";
import { identityCheck } from "./stored-check.js";

const pointer = (path: ReadonlyArray<PropertyKey>): string =>
  path.length === 0 ? "/" : `/${path.map((p) => String(p).replace(/~/g, "~0").replace(/\//g, "~1")).join("/")}`;

/** Every problem of a parse, each located by a JSON pointer, in the order the schema met them. */
export const parseErrorDetails = (error: ParseResult.ParseError): ErrorDetail[] =>
  ParseResult.ArrayFormatter.formatErrorSync(error).map((issue) => ({
    path: pointer(issue.path),
    message: issue._tag === "Unexpected" ? "is not a known field" : issue.message,
  }));

const options = { errors: "all", onExcessProperty: "error" } as const;
const firstOnly = { errors: "first", onExcessProperty: "error" } as const;

/** Deeper than any valid body (the deepest, a source read, is 5 levels): refused before decoding. */
export const maxBodyDepth = 32;
/** Above this many values a body is surely invalid somewhere; only its first problem is looked for. */
const manyNodes = 5_000;

/**
 * Measures a parsed JSON body without recursion, so a body nested thousands of levels deep is
 * measured, not a stack overflow. Stops as soon as the depth is exceeded.
 */
export const measureJson = (value: unknown): { readonly depth: number; readonly nodes: number } => {
  let depth = 0;
  let nodes = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [current, level] = stack.pop()!;
    nodes++;
    if (level > depth) depth = level;
    if (depth > maxBodyDepth) break;
    if (typeof current === "object" && current !== null) {
      for (const child of Array.isArray(current) ? current : Object.values(current)) stack.push([child, level + 1]);
    }
  }
  return { depth, nodes };
};

/** Why a text is refused at the edge, or null: every store must keep exactly what it accepted. */
const illFormed = (text: string): string | null =>
  text.includes("\u0000")
    ? "contains U+0000 (NUL), which no text field accepts"
    : text.isWellFormed()
      ? null
      : "contains a lone surrogate, which is not text (invalid Unicode)";

/**
 * The first string of a body (a value or a key) that no store can keep as sent (decision 0041):
 * PostgreSQL refuses U+0000 in text and turns a lone surrogate into U+FFFD, so memory would keep
 * what PostgreSQL cannot. Walked without recursion, like measureJson.
 */
export const illFormedText = (value: unknown): ErrorDetail | null => {
  const stack: Array<[unknown, ReadonlyArray<PropertyKey>]> = [[value, []]];
  while (stack.length > 0) {
    const [current, path] = stack.pop()!;
    if (typeof current === "string") {
      const problem = illFormed(current);
      if (problem) return { path: pointer(path), message: problem };
    } else if (typeof current === "object" && current !== null) {
      const entries = Array.isArray(current) ? current.map((v, i) => [i, v] as const) : Object.entries(current);
      for (const [key, child] of entries) {
        const problem = typeof key === "string" ? illFormed(key) : null;
        if (problem) return { path: pointer([...path, key]), message: `its name ${problem}` };
        stack.push([child, [...path, key]]);
      }
    }
  }
  return null;
};

/**
 * Decodes a request body: 422 `validation_error` listing every problem, unknown fields included.
 * A body nested deeper than any valid one is refused first (422 naming the depth), and a body with
 * thousands of values is decoded only to its first problem, so a hostile body costs little.
 */
export const decodeBody = <A, I>(schema: Schema.Schema<A, I>, body: unknown): Effect.Effect<A, ValidationError> => {
  const { depth, nodes } = measureJson(body);
  if (depth > maxBodyDepth) {
    return Effect.fail(
      new ValidationError({
        message: `The request body is nested more than ${maxBodyDepth} levels deep; no valid body is.`,
        details: [{ path: "/", message: `is nested more than ${maxBodyDepth} levels deep` }],
      }),
    );
  }
  const text = illFormedText(body);
  if (text) {
    return Effect.fail(
      new ValidationError({ message: `The request body is invalid: ${text.path} ${text.message}.`, details: [text] }),
    );
  }
  return Either.match(Schema.decodeUnknownEither(schema, nodes > manyNodes ? firstOnly : options)(body), {
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
};

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

const storedOptions = { errors: "first" } as const;

/**
 * Decodes what a store read back with the record's schema, instead of asserting its type: ids are
 * checked against their brands, literals and refinements hold, and defaults added to the schema
 * since the record was written are applied. A record the schema refuses is a StorageFailure naming
 * the record, its id and the first problem (a 500: the stored data, not the request, is wrong),
 * never a silently wrong value. `store` prefixes the message, like the store's other failures.
 * The answer is an Either, which is also an Effect: Effect-style stores yield it, Promise-style
 * ones unwrap it.
 */
export const storedDecoder = <A, I>(schema: Schema.Schema<A, I, never>, store: string, record: string) => {
  const decode = Schema.decodeUnknownEither(schema, storedOptions);
  // An input the schema decodes to itself is its own decoded value (stored-check.ts): the common case,
  // at a fraction of the cost. Any other input is decoded, and refused, exactly as without it.
  const decodesToItself = identityCheck(schema.ast, storedOptions);
  /** `id` names the record in the failure; by default the input's own `id`. */
  return (input: unknown, id: unknown = (input as { id?: unknown } | null)?.id): Either.Either<A, StorageFailure> =>
    decodesToItself?.(input)
      ? Either.right(input as A)
      : Either.mapLeft(decode(input), (error) => {
          const [first] = parseErrorDetails(error);
          const named = typeof id === "string" ? ` ${id}` : "";
          return new StorageFailure({
            message: `${store}: the stored ${record}${named} is not a valid ${record}: ${first?.path ?? "/"} ${first?.message ?? "is invalid"}.`,
            cause: error,
          });
        });
};

/**
 * Whether storedDecoder answers `input` as it is, without Effect's decoder (stored-check.ts): what a
 * store builds from its own columns should, so that tests can hold it to that without timing it.
 */
export const decodesAsItIs = <A, I>(schema: Schema.Schema<A, I, never>, input: unknown): boolean =>
  identityCheck(schema.ast, storedOptions)?.(input) === true;
