import "reflect-metadata";

export { ConfigurationError, type HostConfig, readConfig } from "./config.js";
export { buildContainer, HttpServer, TOKENS } from "./container.js";
export { type RunningHost, type StartHostOptions, startHost } from "./host.js";
export { buildOpenApi } from "./api/openapi.js";
export { routes } from "./api/table.js";
export type { Route } from "./api/route.js";
export { type GleanerServices, type LayerOverrides, serviceLayer } from "./layers.js";
export {
  type ParserPlugin,
  type QueuePlugin,
  type StorePlugin,
  parserPlugins,
  queuePlugins,
  storePlugins,
} from "./plugins.js";
export { type GleanerRuntime, runUseCase } from "./http/runtime.js";
