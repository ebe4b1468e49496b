import Router from "@koa/router";
import { createDataset, getDataset, listDatasets, updateDataset } from "@gleaner/core";
import { type GleanerRuntime, runUseCase } from "../runtime.js";
import type { GleanerState } from "../http/middleware.js";
import { ownerOf, pathId } from "./params.js";

/** Endpoints 1-4. */
export const datasetsRouter = (runtime: GleanerRuntime): Router<GleanerState> => {
  const router = new Router<GleanerState>();
  router.post("/datasets", async (ctx) => {
    const dataset = await runUseCase(runtime, createDataset(ownerOf(ctx).id, ctx.request.body));
    ctx.status = 201;
    ctx.body = { dataset };
  });
  router.get("/datasets", async (ctx) => {
    ctx.body = await runUseCase(runtime, listDatasets(ownerOf(ctx).id, ctx.query));
  });
  router.get("/datasets/:datasetId", async (ctx) => {
    const id = pathId(ctx.params.datasetId, "dataset");
    ctx.body = { dataset: await runUseCase(runtime, getDataset(ownerOf(ctx).id, id)) };
  });
  router.patch("/datasets/:datasetId", async (ctx) => {
    const id = pathId(ctx.params.datasetId, "dataset");
    ctx.body = { dataset: await runUseCase(runtime, updateDataset(ownerOf(ctx).id, id, ctx.request.body)) };
  });
  return router;
};
