import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import type { PromMetrics } from "./prom.js";

/**
 * `GET /metrics` on a listener of its own (GLEANER_METRICS_HOST:GLEANER_METRICS_PORT), never on the
 * API's port: what a process counts is for the operator's scraper, not for API clients. Started
 * with the process's services and closed with them; `serve` and `worker` processes alike.
 */
export const metricsServerLayer = (
  metrics: PromMetrics,
  host: string,
  port: number,
  onListening?: (url: string) => void,
) =>
  Layer.scopedDiscard(
    Effect.acquireRelease(
      Effect.async<Server, Error>((resume) => {
        const server = createServer((request, response) => {
          if (request.method !== "GET" || request.url?.split("?")[0] !== "/metrics") {
            response.writeHead(404, { "content-type": "text/plain" }).end("Not found: metrics are at /metrics.\n");
            return;
          }
          metrics.registry.metrics().then(
            (text) => response.writeHead(200, { "content-type": metrics.registry.contentType }).end(text),
            (error: unknown) => response.writeHead(500, { "content-type": "text/plain" }).end(`${String(error)}\n`),
          );
        });
        server.once("error", (error) => resume(Effect.fail(error)));
        server.listen(port, host, () => {
          const { port: bound } = server.address() as AddressInfo;
          onListening?.(`http://${host.includes(":") ? `[${host}]` : host}:${bound}/metrics`);
          resume(Effect.succeed(server));
        });
      }),
      (server) =>
        Effect.async<void>((resume) => {
          server.closeAllConnections();
          server.close(() => resume(Effect.void));
        }),
    ),
  );
