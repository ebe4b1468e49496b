import "reflect-metadata";

export { type HostConfig, readConfig } from "./config.js";
export { buildContainer, HttpServer, TOKENS } from "./container.js";
export { type RunningHost, type StartHostOptions, startHost } from "./host.js";
export { buildOpenApi } from "./openapi.js";
export { type StorePlugin, storePlugins } from "./plugins.js";
export { type GleanerRuntime, type GleanerServices, runUseCase } from "./runtime.js";
