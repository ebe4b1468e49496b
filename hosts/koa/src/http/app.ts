import Router from "@koa/router";
import { bodyParser } from "@koa/bodyparser";
import Koa from "koa";
import type { Logger } from "pino";
import type { GleanerRuntime } from "../runtime.js";
import { errorsAndCredits, type GleanerState, requestLog, requireJsonBody, requireOwner } from "./middleware.js";

export interface AppOptions {
  readonly runtime: GleanerRuntime;
  readonly logger: Logger;
  readonly bodyLimitBytes: number;
  /** Routers mounted under /v1 behind authentication. */
  readonly routers: ReadonlyArray<Router<GleanerState>>;
  readonly openapi: () => unknown;
}

/** The Koa application: public meta routes, then the authenticated /v1 API. */
export const createApp = ({ runtime, logger, bodyLimitBytes, routers, openapi }: AppOptions): Koa<GleanerState> => {
  const app = new Koa<GleanerState>();
  app.proxy = true;
  // Koa would print every error again; errorsAndCredits already logged what matters.
  app.silent = true;
  app.use(requestLog(logger));
  app.use(errorsAndCredits(runtime, logger));

  const meta = new Router<GleanerState>();
  meta.get("/healthz", (ctx) => {
    ctx.body = { status: "ok" };
  });
  let document: unknown;
  meta.get("/v1/openapi.json", (ctx) => {
    document ??= openapi();
    ctx.body = document;
  });
  app.use(meta.routes());

  const api = new Router<GleanerState>({ prefix: "/v1" });
  api.use(requireOwner(runtime), requireJsonBody, bodyParser({ enableTypes: ["json"], jsonLimit: bodyLimitBytes }));
  for (const router of routers) api.use(router.routes(), router.allowedMethods());
  app.use(api.routes());
  return app;
};
