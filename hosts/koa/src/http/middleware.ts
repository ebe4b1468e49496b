import type { PromMetrics } from "../metrics/prom.js";
import { authenticate, type Owner, ownerBalance } from "@gleaner/core";
import type { Middleware } from "koa";
import type { Logger } from "pino";
import { type GleanerRuntime, runUseCase } from "./runtime.js";
import { HttpError, internalError } from "./errors.js";

export interface GleanerState {
  owner?: Owner;
  /** The operationId of the route that answered (the router sets it); absent when none matched. */
  operationId?: string;
  /** The owner's balance when the route read it with the key (an authenticated GET, api/open-get.ts). */
  balance?: number;
}

/**
 * Counts each request by its route's operationId (`unmatched` when no route answered), method and
 * final status, with its duration: outermost, so an error's status is the one counted.
 */
export const requestMetrics =
  (metrics: Pick<PromMetrics, "httpRequest">): Middleware<GleanerState> =>
  async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      metrics.httpRequest(ctx.state.operationId ?? "unmatched", ctx.method, ctx.status, performance.now() - started);
    }
  };

/** Logs one line per request with its status and duration (never headers: they carry keys). */
export const requestLog =
  (logger: Logger): Middleware =>
  async (ctx, next) => {
    // Checked per request, not once: a test or an operator may change the level while serving.
    if (!logger.isLevelEnabled("info")) return next();
    const started = performance.now();
    try {
      await next();
    } finally {
      logger.info(
        { method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(performance.now() - started) },
        "request",
      );
    }
  };

/**
 * Renders every failure as the error body, and sets X-Credits-Remaining on every answer: the
 * owner's balance when the request was authenticated, 0 otherwise (401 included).
 */
export const errorsAndCredits =
  (runtime: GleanerRuntime, logger: Logger): Middleware<GleanerState> =>
  async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        throw new HttpError(404, "not_found", `There is no ${ctx.method} ${ctx.path}.`);
      }
      if (ctx.status === 405 && (ctx.body === undefined || ctx.body === "Method Not Allowed")) {
        throw new HttpError(405, "method_not_allowed", `${ctx.method} is not allowed on ${ctx.path}.`);
      }
    } catch (thrown) {
      const error = toHttpError(thrown);
      if (error.status >= 500) logger.error({ err: (thrown as { cause?: unknown }).cause ?? thrown }, "request failed");
      for (const [name, value] of Object.entries(error.headers)) ctx.set(name, value);
      ctx.status = error.status;
      ctx.body = error.body;
      if (error.status === 401) delete ctx.state.owner;
    }
    // A key sent to no route (404, 405) still gets its owner's balance, not 0 (issue 33).
    if (!ctx.state.owner && (ctx.status === 404 || ctx.status === 405) && ctx.get("Authorization")) {
      ctx.state.owner = await runUseCase(runtime, authenticate(ctx.get("Authorization"))).catch(() => undefined);
    }
    const owner = ctx.state.owner;
    let balance = 0;
    if (owner) {
      balance = ctx.state.balance ?? (await runUseCase(runtime, ownerBalance(owner.id)).catch(() => 0));
    }
    ctx.set("X-Credits-Remaining", String(balance));
  };

const toHttpError = (thrown: unknown): HttpError => {
  if (thrown instanceof HttpError) return thrown;
  const status = (thrown as { status?: number; type?: string }).status;
  const type = (thrown as { type?: string }).type;
  // co-body (behind @koa/bodyparser) reports these two; everything else is ours to explain.
  if (status === 413 || type === "entity.too.large") {
    return new HttpError(413, "payload_too_large", "The request body is larger than this server accepts.");
  }
  if (status === 400) return new HttpError(400, "bad_request", "The request body is not valid JSON.");
  if (status === 415) return new HttpError(415, "unsupported_media_type", "Send the body as application/json.");
  return Object.assign(internalError(), { cause: thrown });
};

/** Requires a valid bearer key and puts its owner on `ctx.state.owner`. */
export const requireOwner =
  (runtime: GleanerRuntime): Middleware<GleanerState> =>
  async (ctx, next) => {
    ctx.state.owner = await runUseCase(runtime, authenticate(ctx.get("Authorization") || undefined));
    await next();
  };

/** A body-carrying request must be JSON; anything else would be silently read as `{}`. */
export const requireJsonBody: Middleware = async (ctx, next) => {
  const hasBody = Number(ctx.get("Content-Length") || 0) > 0 || ctx.get("Transfer-Encoding") !== "";
  if (hasBody && !ctx.is("application/json", "application/merge-patch+json")) {
    throw new HttpError(415, "unsupported_media_type", "Send the body as application/json.");
  }
  await next();
};
