import Koa from "koa";
import type { Logger } from "pino";
import { buildRouter } from "../api/koa.js";
import type { Route } from "../api/route.js";
import { consoleAssetsDir, serveConsole } from "./console.js";
import type { PromMetrics } from "../metrics/prom.js";
import { mcpMiddleware } from "../mcp/http.js";
import { errorsAndCredits, type GleanerState, requestLog, requestMetrics } from "./middleware.js";
import type { GleanerRuntime } from "./runtime.js";

export interface AppOptions {
  readonly runtime: GleanerRuntime;
  readonly logger: Logger;
  readonly bodyLimitBytes: number;
  /** The route table (api/table.ts): every operation, public or behind a key. */
  readonly routes: ReadonlyArray<Route>;
  /** Counts every request by its route's operationId, when the process has metrics. */
  readonly metrics?: PromMetrics | null;
}

/** The Koa application: request log, error body and credits header, the console's files, then the route table. */
export const createApp = ({ runtime, logger, bodyLimitBytes, routes, metrics }: AppOptions): Koa<GleanerState> => {
  const app = new Koa<GleanerState>();
  app.proxy = true;
  // Koa would print every error again; errorsAndCredits already logged what matters.
  app.silent = true;
  if (metrics) app.use(requestMetrics(metrics));
  app.use(requestLog(logger));
  app.use(errorsAndCredits(runtime, logger));
  // Agents: the Model Context Protocol at /mcp, behind the same keys (outside the route table: it is
  // another protocol, its own tools listed by the protocol itself).
  app.use(mcpMiddleware(runtime));
  // The web console's static files, ahead of the API routes and outside their table (so outside the
  // OpenAPI document too): the console is a client of the API, not part of it.
  app.use(serveConsole(consoleAssetsDir()));
  const router = buildRouter(routes, { runtime, bodyLimitBytes });
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
};
