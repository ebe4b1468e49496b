import Router from "@koa/router";
import { editRow, getRow, listChanges, listRows } from "@gleaner/core";
import type { GleanerState } from "../http/middleware.js";
import { type GleanerRuntime, runUseCase } from "../runtime.js";
import { ownerOf, pathId } from "./params.js";

/** Endpoints 5-8: rows, one row, a row edit, the change feed. */
export const rowsRouter = (runtime: GleanerRuntime): Router<GleanerState> => {
  const router = new Router<GleanerState>();
  router.get("/datasets/:datasetId/rows", async (ctx) => {
    const id = pathId(ctx.params.datasetId, "dataset");
    ctx.body = await runUseCase(runtime, listRows(ownerOf(ctx).id, id, ctx.query));
  });
  router.get("/datasets/:datasetId/rows/:rowId", async (ctx) => {
    const id = pathId(ctx.params.datasetId, "dataset");
    ctx.body = await runUseCase(runtime, getRow(ownerOf(ctx).id, id, pathId(ctx.params.rowId, "row")));
  });
  router.patch("/datasets/:datasetId/rows/:rowId", async (ctx) => {
    const id = pathId(ctx.params.datasetId, "dataset");
    const rowId = pathId(ctx.params.rowId, "row");
    ctx.body = await runUseCase(runtime, editRow(ownerOf(ctx).id, id, rowId, ctx.request.body));
  });
  router.get("/datasets/:datasetId/changes", async (ctx) => {
    const id = pathId(ctx.params.datasetId, "dataset");
    ctx.body = await runUseCase(runtime, listChanges(ownerOf(ctx).id, id, ctx.query));
  });
  return router;
};
