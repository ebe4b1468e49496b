import Router from "@koa/router";
import { bodyParser } from "@koa/bodyparser";
import { NotFound } from "@gleaner/core";
import * as Schema from "effect/Schema";
import type { Middleware } from "koa";
import { HttpError } from "../http/errors.js";
import { taggedPages } from "../http/tagged-pages.js";
import { type GleanerState, requireJsonBody, requireOwner } from "../http/middleware.js";
import { type GleanerRuntime, runUseCase } from "../http/runtime.js";
import { isRaw, type Route } from "./route.js";

/** Path ids are core's UUIDs; anything else names nothing (404, like an unknown id). */
const isUuid = Schema.is(Schema.UUID);

/**
 * RFC 9110 13.1.2: If-None-Match holds when it is `*` or lists the tag, compared weakly (W/ ignored).
 * Not Koa's `ctx.fresh`: that is a cache's rule and ignores the tag when the request says
 * `Cache-Control: no-cache`, which fetch() adds to every conditional request it sends.
 */
const noneMatchHolds = (header: string, tag: string): boolean => {
  const opaque = (t: string) => t.trim().replace(/^W\//, "");
  return header.trim() === "*" || header.split(",").some((candidate) => opaque(candidate) === opaque(tag));
};

/** `/v1/datasets/{datasetId}` -> `/v1/datasets/:datasetId` */
export const koaPath = (path: string): string => path.replace(/\{([^}]+)\}/g, ":$1");

export interface RouterOptions {
  readonly runtime: GleanerRuntime;
  readonly bodyLimitBytes: number;
}

/**
 * One Koa router for the whole table. Each route gets the middleware its entry implies:
 * authentication, a JSON body parser (JSON and merge-patch JSON; anything else is 415), and path
 * ids that are not UUIDs answered as the 404 an unknown id gets.
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
    const chain: Middleware<GleanerState>[] = [];
    if (route.auth) chain.push(requireOwner(runtime));
    if (route.body) chain.push(requireJsonBody, parseJson);
    chain.push(async (ctx) => {
      const params: Record<string, string> = {};
      for (const [name, param] of Object.entries(route.pathParams ?? {})) {
        const value = ctx.params[name];
        if (!value || !isUuid(value)) {
          throw HttpError.fromApiError(new NotFound({ resource: param.resource, id: value ?? "" }));
        }
        params[name] = value.toLowerCase();
      }
      const input = {
        owner: ctx.state.owner!,
        params,
        query: ctx.query as Record<string, unknown>,
        body: (ctx.request as { body?: unknown }).body,
      };
      let tag: string | null = null;
      if (route.etag) {
        tag = await runUseCase(runtime, route.etag(input));
        ctx.set("ETag", tag);
        if (noneMatchHolds(ctx.get("If-None-Match"), tag)) {
          ctx.status = 304;
          return;
        }
        const cached = pages.get(tag);
        if (cached !== undefined) {
          ctx.status = route.success.status;
          ctx.type = "application/json";
          ctx.body = cached;
          return;
        }
      }
      const answer = await runUseCase(runtime, route.handle(input));
      ctx.status = route.success.status;
      if (tag !== null && !isRaw(answer)) {
        // Serialized once per tag: the next read of the unchanged page sends these bytes.
        const bytes = Buffer.from(JSON.stringify(answer), "utf8");
        pages.set(tag, bytes);
        ctx.type = "application/json";
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
