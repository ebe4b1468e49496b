import { Container, inject, injectable } from "inversify";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import * as Layer from "effect/Layer";
import * as ManagedRuntime from "effect/ManagedRuntime";
import type Koa from "koa";
import type { Logger } from "pino";
import { makeLogger, pinoLoggerLayer } from "./logging.js";
import type { HostConfig } from "./config.js";
import { createApp } from "./http/app.js";
import type { GleanerState } from "./http/middleware.js";
import { type LayerOverrides, onVirtualClock, serviceLayer } from "./layers.js";
import { routes } from "./api/table.js";
import { PromMetrics } from "./metrics/prom.js";
import { tracingLayer } from "./tracing.js";
import type { GleanerRuntime, GleanerServices } from "./http/runtime.js";

/**
 * The composition root. inversify wires only the host's own parts (configuration, logger, the
 * Koa app, the HTTP server) and one singleton Effect runtime built from the Layer that the
 * configuration selects. No token names a port: ports are Effect's business.
 */
export const TOKENS = {
  Config: Symbol.for("gleaner.Config"),
  Logger: Symbol.for("gleaner.Logger"),
  AdapterLayer: Symbol.for("gleaner.AdapterLayer"),
  Runtime: Symbol.for("gleaner.Runtime"),
  App: Symbol.for("gleaner.App"),
  HttpServer: Symbol.for("gleaner.HttpServer"),
} as const;

/** How long the server keeps an idle keep-alive connection (see `listen`). */
const keepAliveTimeoutMs = 65_000;

@injectable()
export class HttpServer {
  private server: Server | undefined;

  constructor(
    @inject(TOKENS.App) private readonly app: Koa<GleanerState>,
    @inject(TOKENS.Config) private readonly config: HostConfig,
  ) {}

  /** Starts listening; resolves with the base URL once the port is bound. */
  listen(): Promise<string> {
    return new Promise((resolve, reject) => {
      const server = this.app.listen(this.config.port, this.config.host);
      // An idle keep-alive connection stays open 65 s (Node's default is 5 s), longer than the idle
      // timeouts of clients and load balancers in front (60 s is common): a client that sends on a
      // connection the server is closing at that instant gets ECONNRESET, which a short server
      // timeout makes likely for any client pausing a few seconds between requests.
      server.keepAliveTimeout = keepAliveTimeoutMs;
      server.once("error", reject);
      server.once("listening", () => {
        const { port } = server.address() as AddressInfo;
        const host = this.config.host === "0.0.0.0" || this.config.host === "::" ? "localhost" : this.config.host;
        resolve(`http://${host.includes(":") ? `[${host}]` : host}:${port}`);
      });
      this.server = server;
    });
  }

  close(): Promise<void> {
    const server = this.server;
    if (!server) return Promise.resolve();
    return new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }
}

export interface ContainerOptions {
  readonly config: HostConfig;
  /** Adapters to use instead of the configured ones (the conformance suite does). */
  readonly overrides?: LayerOverrides;
  /** Run the worker in this process (serve: yes; an API-only process: no). */
  readonly worker?: boolean;
  /** Run on Effect's TestClock (tests of schedules in virtual time). */
  readonly virtualClock?: boolean;
  readonly logger?: Logger;
}

export const buildContainer = ({
  config,
  overrides,
  worker = true,
  virtualClock,
  logger,
}: ContainerOptions): Container => {
  const container = new Container({ defaultScope: "Singleton" });
  container.bind<HostConfig>(TOKENS.Config).toConstantValue(config);
  const log = logger ?? makeLogger(config.logLevel);
  // One set of metrics per process, shared by the services (runs, pages) and the app (requests).
  const metrics = config.metrics ? new PromMetrics() : null;
  container.bind<Logger>(TOKENS.Logger).toConstantValue(log);
  container.bind<Layer.Layer<GleanerServices, unknown>>(TOKENS.AdapterLayer).toDynamicValue(() => {
    // The logger is provided to the whole graph, so workers forked while it is built log through pino too.
    const layer = Layer.provideMerge(
      serviceLayer(config, overrides, worker, metrics),
      Layer.merge(pinoLoggerLayer(log), tracingLayer(config.tracing)),
    );
    return virtualClock ? onVirtualClock(layer) : layer;
  });
  container
    .bind<GleanerRuntime>(TOKENS.Runtime)
    .toDynamicValue((ctx) => ManagedRuntime.make(ctx.get<Layer.Layer<GleanerServices, unknown>>(TOKENS.AdapterLayer)))
    .onDeactivation((runtime) => runtime.dispose());
  container.bind<Koa<GleanerState>>(TOKENS.App).toDynamicValue((ctx) => {
    const runtime = ctx.get<GleanerRuntime>(TOKENS.Runtime);
    return createApp({
      runtime,
      logger: ctx.get<Logger>(TOKENS.Logger),
      bodyLimitBytes: config.bodyLimitBytes,
      routes,
      metrics,
    });
  });
  container.bind(TOKENS.HttpServer).to(HttpServer);
  return container;
};
