import Router from "@koa/router";
import { getUsage } from "@gleaner/core";
import { type GleanerRuntime, runUseCase } from "../runtime.js";
import type { GleanerState } from "../http/middleware.js";
import { ownerOf } from "./params.js";

/** Endpoint 16. */
export const usageRouter = (runtime: GleanerRuntime): Router<GleanerState> => {
  const router = new Router<GleanerState>();
  router.get("/usage", async (ctx) => {
    ctx.body = await runUseCase(runtime, getUsage(ownerOf(ctx).id));
  });
  return router;
};
