import "reflect-metadata";

export { type HostConfig, readConfig } from "./config.js";
export { buildContainer, HttpServer, TOKENS } from "./container.js";
export { type RunningHost, type StartHostOptions, startHost } from "./host.js";
export { buildOpenApi } from "./openapi.js";
export { type GleanerServices, type LayerOverrides, serviceLayer } from "./layers.js";
export {
  type ParserPlugin,
  type QueuePlugin,
  type StorePlugin,
  parserPlugins,
  queuePlugins,
  storePlugins,
} from "./plugins.js";
export { type GleanerRuntime, runUseCase } from "./runtime.js";
