import Router from "@koa/router";
import { bodyParser } from "@koa/bodyparser";
import { decodeRequest, isCanonicalUuid, NotFound, type Owner } from "@gleaner/core";
import * as Effect from "effect/Effect";
import * as Either from "effect/Either";
import type { Middleware } from "koa";
import { HttpError } from "../http/errors.js";
import { taggedPages } from "../http/tagged-pages.js";
import { type GleanerState, requireJsonBody, requireOwner } from "../http/middleware.js";
import { type GleanerRuntime, runExit, runUseCase, useCaseValue } from "../http/runtime.js";
import { openAuthenticatedGet } from "./open-get.js";
import { isRaw, type Route } from "./route.js";

/**
 * RFC 9110 13.1.2: If-None-Match holds when it is `*` or lists the tag, compared weakly (W/ ignored).
 * Not Koa's `ctx.fresh`: that is a cache's rule and ignores the tag when the request says
 * `Cache-Control: no-cache`, which fetch() adds to every conditional request it sends.
 */
const noneMatchHolds = (header: string, tag: string): boolean => {
  if (header === "") return false;
  const opaque = (t: string) => t.trim().replace(/^W\//, "");
  return header.trim() === "*" || header.split(",").some((candidate) => opaque(candidate) === opaque(tag));
};

/** Set as a header rather than through `ctx.type`, which looks the type up again on every answer. */
const json = "application/json; charset=utf-8";

/** `/v1/datasets/{datasetId}` -> `/v1/datasets/:datasetId` */
export const koaPath = (path: string): string => path.replace(/\{([^}]+)\}/g, ":$1");

/**
 * Path ids are core's UUIDs, in any case (lower-cased here); anything else names nothing: the 404 an
 * unknown id gets, returned rather than thrown so that a missing key is still answered 401 first.
 */
const pathParams = (route: Route, given: Record<string, string | undefined>): Record<string, string> | HttpError => {
  const params: Record<string, string> = {};
  for (const [name, param] of Object.entries(route.pathParams ?? {})) {
    const value = given[name]?.toLowerCase();
    if (!value || !isCanonicalUuid(value)) {
      return HttpError.fromApiError(new NotFound({ resource: param.resource, id: given[name] ?? "" }));
    }
    params[name] = value;
  }
  return params;
};

export interface RouterOptions {
  readonly runtime: GleanerRuntime;
  readonly bodyLimitBytes: number;
}

/**
 * One Koa router for the whole table. Each route gets the middleware its entry implies:
 * authentication, a JSON body parser (JSON and merge-patch JSON; anything else is 415), and path
 * ids that are not UUIDs answered as the 404 an unknown id gets. An authenticated GET opens with one
 * run of the runtime (open-get.ts) instead of one each for the key, the tag and the balance.
 */
export const buildRouter = (routes: ReadonlyArray<Route>, { runtime, bodyLimitBytes }: RouterOptions) => {
  // strict: `/v1/datasets/` is not `/v1/datasets`; the document lists paths exactly as they are answered.
  const router = new Router<GleanerState>({ strict: true });
  const pages = taggedPages();
  const parseJson = bodyParser({
    enableTypes: ["json"],
    extendTypes: { json: ["application/json", "application/merge-patch+json"] },
    jsonLimit: bodyLimitBytes,
  }) as unknown as Middleware<GleanerState>;
  for (const route of routes) {
    const chain: Middleware<GleanerState>[] = [
      async (ctx, next) => {
        ctx.state.operationId = route.operationId;
        await next();
      },
    ];
    const opensGet = route.auth && route.method === "get";
    if (route.auth && !opensGet) chain.push(requireOwner(runtime));
    if (route.body) chain.push(requireJsonBody, parseJson);
    chain.push(async (ctx) => {
      const params = pathParams(route, ctx.params);
      let owner: Owner;
      let tag: string | null = null;
      if (opensGet) {
        const authorization = ctx.get("Authorization") || undefined;
        const etag = route.etag;
        const querystring = ctx.querystring;
        const tagOf =
          etag && !(params instanceof HttpError) ? (owner: Owner) => etag({ owner, params, querystring }) : null;
        // On the memory store the opening has finished when runExit returns: no promise to wait for.
        const opening = runExit(runtime, openAuthenticatedGet(authorization, tagOf));
        const opened = useCaseValue(opening instanceof Promise ? await opening : opening);
        ctx.state.owner = opened.owner;
        ctx.state.balance = opened.balance;
        if (params instanceof HttpError) throw params;
        if (Either.isLeft(opened.tag)) throw HttpError.fromApiError(opened.tag.left);
        owner = opened.owner;
        tag = opened.tag.right;
      } else {
        if (params instanceof HttpError) throw params;
        owner = ctx.state.owner!;
      }
      if (tag !== null) {
        ctx.set("ETag", tag);
        if (noneMatchHolds(ctx.get("If-None-Match"), tag)) {
          ctx.status = 304;
          return;
        }
        const cached = pages.get(tag);
        if (cached !== undefined) {
          ctx.status = route.success.status;
          ctx.set("Content-Type", json);
          ctx.body = cached;
          return;
        }
      }
      // Parsed only here: a tagged page answered from its tag (304 or cached bytes) never reads the query.
      const raw = { query: ctx.query, body: (ctx.request as { body?: unknown }).body };
      // Decoded where the use cases decoded it before: every one of them judged the request first.
      const decodedThenHandled = Effect.flatMap(decodeRequest(route, raw), ({ query, body }) =>
        route.handle({ owner, params, query, body }),
      );
      // One server span per request, named by its operation: the route's template, never its ids or query.
      const handled = decodedThenHandled.pipe(
        Effect.withSpan(`http ${route.operationId}`, {
          kind: "server",
          attributes: { "http.request.method": ctx.method, "http.route": route.path },
        }),
      );
      const answer = await runUseCase(runtime, handled);
      ctx.status = route.success.status;
      if (tag !== null && !isRaw(answer)) {
        // Serialized once per tag: the next read of the unchanged page sends these bytes.
        const bytes = Buffer.from(JSON.stringify(answer), "utf8");
        pages.set(tag, bytes);
        ctx.set("Content-Type", json);
        ctx.body = bytes;
      } else if (isRaw(answer)) {
        ctx.type = answer.contentType;
        for (const [name, value] of Object.entries(answer.headers ?? {})) ctx.set(name, value);
        ctx.body = answer.body;
      } else {
        ctx.body = answer;
      }
    });
    router.register(koaPath(route.path), [route.method.toUpperCase()], chain);
  }
  return router;
};
