import * as Effect from "effect/Effect";
import type * as Schema from "effect/Schema";
import { decodeBody, decodeQuery } from "./decode.js";
import type { BadRequest, ValidationError } from "./errors.js";

/** What an operation declares for its body: the schema it is decoded with, and whether it may be left out. */
export interface BodySchema<S extends Schema.Schema.AnyNoContext = Schema.Schema.AnyNoContext> {
  readonly schema: S;
  readonly required: boolean;
  /** An optional body sent empty (`{}`, `[]` or `null`) counts as left out, as a run's always has. */
  readonly emptyIsNone?: boolean;
}

/** What an operation reads beyond its path: a query schema, a body schema, or neither. */
export interface RequestSchemas<
  Q extends Schema.Schema.AnyNoContext | undefined = Schema.Schema.AnyNoContext | undefined,
  B extends BodySchema | undefined = BodySchema | undefined,
> {
  readonly query?: Q;
  readonly body?: B;
}

/** A decoded query: the query schema's type; undefined for an operation without one. */
export type DecodedQuery<Q> = Q extends Schema.Schema.AnyNoContext ? Schema.Schema.Type<Q> : undefined;

/** A decoded body: the body schema's type, or undefined as well when the body may be left out. */
export type DecodedBody<B> = B extends { readonly schema: infer S extends Schema.Schema.AnyNoContext }
  ? B extends { readonly required: true }
    ? Schema.Schema.Type<S>
    : Schema.Schema.Type<S> | undefined
  : undefined;

/** A request's query and body as the transport parsed them (an optional body left out is undefined). */
export interface RawRequestInput {
  readonly query: Record<string, unknown>;
  readonly body: unknown;
}

const nothing = Effect.succeed(undefined);

const isEmpty = (body: unknown): boolean =>
  body === undefined || body === null || (typeof body === "object" && Object.keys(body).length === 0);

/** Whether an optional body counts as left out: undefined, or empty where the operation says so. */
const leftOut = ({ required, emptyIsNone }: BodySchema, body: unknown): boolean =>
  !required && (emptyIsNone ? isEmpty(body) : body === undefined);

/**
 * Decodes a request's query and body with the schemas its operation declares, as the HTTP edge does
 * before any use case runs: the query with decodeQuery (400), then the body with decodeBody (422).
 * Every caller holding raw input (the router, the Promise API) decodes with this, then calls the use case.
 */
export const decodeRequest = <
  Q extends Schema.Schema.AnyNoContext | undefined = undefined,
  B extends BodySchema | undefined = undefined,
>(
  declared: RequestSchemas<Q, B>,
  raw: RawRequestInput,
): Effect.Effect<{ readonly query: DecodedQuery<Q>; readonly body: DecodedBody<B> }, BadRequest | ValidationError> =>
  Effect.flatMap(declared.query ? decodeQuery(declared.query, raw.query) : nothing, (query) =>
    Effect.map(
      declared.body && !leftOut(declared.body, raw.body) ? decodeBody(declared.body.schema, raw.body) : nothing,
      (body) => ({ query, body }),
    ),
  );
