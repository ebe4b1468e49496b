import type { ApiError, BodySchema, DecodedBody, DecodedQuery, Owner, RequestSchemas } from "@gleaner/core";
import type * as Effect from "effect/Effect";
import type * as Schema from "effect/Schema";
import type { GleanerServices } from "../layers.js";

/**
 * What a handler gets: the owner (for authenticated routes), path ids, and the query and body
 * already decoded with the route's schemas (`decodeRequest`, koa.ts), so a handler never parses.
 */
export interface RouteInput<P extends string = string, Q = unknown, B = unknown> {
  readonly owner: Owner;
  /** Path parameters by the names the route declares, already checked to be UUIDs and lower-cased. */
  readonly params: Readonly<Record<P, string>>;
  readonly query: Q;
  readonly body: B;
}

/**
 * What a route's entity tag is computed from: the query as the request wrote it, not parsed (a page
 * answered from its tag never parses it; decision 0042). The same page asked with its parameters in
 * another order or spelling gets another tag, which only costs that client a full answer.
 */
export interface TagInput<P extends string = string> {
  readonly owner: Owner;
  readonly params: Readonly<Record<P, string>>;
  /** The raw query string, without `?` ("" when there is none). */
  readonly querystring: string;
}

/** A non-JSON answer (the OpenAPI document is JSON too; this is for streams and text). */
export interface RawAnswer {
  readonly raw: true;
  readonly contentType: string;
  readonly body: string | Buffer | NodeJS.ReadableStream;
  readonly headers?: Readonly<Record<string, string>>;
}

export type PathParam = { readonly resource: string; readonly description: string };

/**
 * One operation of the HTTP API, the single source for the Koa router and the OpenAPI document.
 * Schemas are core's own (the router decodes query and body with them), so limits are written once.
 */
export interface Route<
  P extends string = string,
  Q extends Schema.Schema.AnyNoContext | undefined = Schema.Schema.AnyNoContext | undefined,
  B extends BodySchema | undefined = BodySchema | undefined,
> extends RequestSchemas<Q, B> {
  readonly method: "get" | "post" | "patch" | "delete";
  /** OpenAPI-style path: `/v1/datasets/{datasetId}`. */
  readonly path: string;
  readonly operationId: string;
  readonly tag: string;
  readonly summary: string;
  readonly description: string;
  /** false for the public meta routes (health, readiness, the document itself). */
  readonly auth: boolean;
  readonly pathParams?: Readonly<Record<P, PathParam>>;
  readonly success: {
    readonly status: number;
    readonly description: string;
    /** The JSON schema of the answer; null for a non-JSON answer described by `contentTypes`. */
    readonly schema: Schema.Schema.AnyNoContext | null;
    readonly contentTypes?: ReadonlyArray<string>;
  };
  /**
   * Error statuses this operation documents beyond the ones every route of its shape has
   * (401, 404 for path ids, 400 for queries, 413/415/422 for bodies, 500), with their codes.
   */
  readonly errors?: Readonly<Record<number, ReadonlyArray<string>>>;
  readonly handle: (
    input: RouteInput<P, DecodedQuery<Q>, DecodedBody<B>>,
  ) => Effect.Effect<unknown | RawAnswer, ApiError, GleanerServices>;
  /**
   * A GET whose answer has a cheap entity tag: computed before `handle`, sent as `ETag`, and a request
   * whose `If-None-Match` carries it is answered 304 without running `handle` (decision 0018).
   */
  readonly etag?: (input: TagInput<P>) => Effect.Effect<string, ApiError, GleanerServices>;
}

/**
 * One route of the table, its handler typed by what it declares: `params.datasetId` is a string
 * wherever `pathParams` names it, `query` and `body` are its schemas' decoded types. The router
 * checks every declared id and decodes query and body before calling the handler (koa.ts), which is
 * what lets the table hold routes of every shape as one type.
 */
export const route = <
  P extends string = never,
  Q extends Schema.Schema.AnyNoContext | undefined = undefined,
  B extends BodySchema | undefined = undefined,
>(
  definition: Route<P, Q, B>,
): Route => definition as unknown as Route;

export const isRaw = (value: unknown): value is RawAnswer =>
  typeof value === "object" && value !== null && (value as { raw?: unknown }).raw === true;

/**
 * Every status an operation can answer, with its error codes: the route's own plus the ones its
 * shape implies. The Koa router and the document read this one function, so they cannot disagree.
 */
export const errorStatuses = (route: Route): ReadonlyMap<number, ReadonlyArray<string>> => {
  const statuses = new Map<number, Set<string>>();
  const add = (status: number, ...codes: string[]) => {
    const set = statuses.get(status) ?? new Set<string>();
    for (const code of codes) set.add(code);
    statuses.set(status, set);
  };
  if (route.auth) add(401, "unauthorized");
  if (route.pathParams && Object.keys(route.pathParams).length > 0) add(404, "not_found");
  if (route.query) add(400, "bad_request");
  if (route.body) {
    add(400, "bad_request");
    add(413, "payload_too_large");
    add(415, "unsupported_media_type");
    add(422, "validation_error");
  }
  for (const [status, codes] of Object.entries(route.errors ?? {})) add(Number(status), ...codes);
  // Any route that reads storage answers 503 while the database is unreachable (Retry-After: 5).
  if (route.auth) add(503, "storage_unavailable");
  add(500, "internal_error");
  return new Map([...statuses].sort(([a], [b]) => a - b).map(([status, codes]) => [status, [...codes]]));
};
