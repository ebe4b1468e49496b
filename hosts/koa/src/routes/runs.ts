import Router from "@koa/router";
import { createRun, getArtifact, getDiagnostics, getRun, getTrace, listArtifacts, listRuns } from "@gleaner/core";
import type { GleanerState } from "../http/middleware.js";
import { type GleanerRuntime, runUseCase } from "../runtime.js";
import { ownerOf, pathId } from "./params.js";

/** Endpoints 9-15. */
export const runsRouter = (runtime: GleanerRuntime): Router<GleanerState> => {
  const router = new Router<GleanerState>();
  router.get("/datasets/:datasetId/runs", async (ctx) => {
    const id = pathId(ctx.params.datasetId, "dataset");
    ctx.body = await runUseCase(runtime, listRuns(ownerOf(ctx).id, id, ctx.query));
  });
  router.post("/datasets/:datasetId/runs", async (ctx) => {
    const id = pathId(ctx.params.datasetId, "dataset");
    const created = await runUseCase(runtime, createRun(ownerOf(ctx).id, id, ctx.request.body));
    ctx.status = 202;
    ctx.body = created;
  });
  router.get("/runs/:runId", async (ctx) => {
    const id = pathId(ctx.params.runId, "run");
    ctx.body = { run: await runUseCase(runtime, getRun(ownerOf(ctx).id, id)) };
  });
  router.get("/runs/:runId/trace", async (ctx) => {
    ctx.body = await runUseCase(runtime, getTrace(ownerOf(ctx).id, pathId(ctx.params.runId, "run")));
  });
  router.get("/runs/:runId/artifacts", async (ctx) => {
    ctx.body = await runUseCase(runtime, listArtifacts(ownerOf(ctx).id, pathId(ctx.params.runId, "run")));
  });
  router.get("/runs/:runId/artifacts/:artifactId", async (ctx) => {
    const runId = pathId(ctx.params.runId, "run");
    ctx.body = await runUseCase(
      runtime,
      getArtifact(ownerOf(ctx).id, runId, pathId(ctx.params.artifactId, "artifact")),
    );
  });
  router.get("/runs/:runId/diagnostics", async (ctx) => {
    ctx.body = await runUseCase(runtime, getDiagnostics(ownerOf(ctx).id, pathId(ctx.params.runId, "run"), ctx.query));
  });
  return router;
};
