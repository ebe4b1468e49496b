import { Fetcher, type FetchRequest, type ReadFailed, type FetchedPage } from "@gleaner/core";
import * as Effect from "effect/Effect";
import type * as Either from "effect/Either";
import * as ManagedRuntime from "effect/ManagedRuntime";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import net from "node:net";
import type { AddressInfo } from "node:net";
import { type HttpFetcherConfig, HttpFetcherLive } from "../src/index.js";

/**
 * Test harness: real HTTP servers on loopback, a fetcher runtime, and a tripwire that stops (and
 * records) any socket this process opens to a non-loopback address, so a guard bug can never send a
 * packet off the machine: the connection is redirected to a closed loopback port instead.
 */

export const tripped: string[] = [];
/** Addresses nock answers for (tests using them call nock.disableNetConnect()). */
export const mockedPublicAddresses = new Set<string>();

const isLoopback = (address: string): boolean =>
  address === "::1" ||
  address.startsWith("127.") ||
  address.startsWith("::ffff:127.") ||
  mockedPublicAddresses.has(address);

const originalConnect = net.Socket.prototype.connect;
type LookupCallback = (
  error: Error | null,
  address: string | Array<{ address: string; family: number }>,
  family?: number,
) => void;
type Lookup = (hostname: string, options: object, callback: LookupCallback) => void;
net.Socket.prototype.connect = function guardedForTests(this: net.Socket, ...args: unknown[]) {
  const first = args[0];
  if (first && typeof first === "object" && !("path" in first && (first as { path?: string }).path)) {
    const options = first as { host?: string; port?: number; lookup?: Lookup };
    const host = options.host ?? "localhost";
    const redirect = (what: string) => {
      tripped.push(what);
      options.host = "127.0.0.1";
      options.port = 1;
      delete options.lookup;
    };
    if (net.isIP(host)) {
      if (!isLoopback(host)) redirect(host);
    } else if (options.lookup) {
      const inner = options.lookup;
      options.lookup = (hostname, lookupOptions, callback) =>
        inner(hostname, lookupOptions, (error, address, family) => {
          const addresses = typeof address === "string" ? [address] : (address ?? []).map((entry) => entry.address);
          const bad = addresses.find((entry) => !isLoopback(entry));
          if (!error && bad) {
            tripped.push(`${hostname} -> ${bad}`);
            const all = (lookupOptions as { all?: boolean }).all;
            return all ? callback(null, [{ address: "127.0.0.1", family: 4 }]) : callback(null, "127.0.0.1", 4);
          }
          callback(error, address, family);
        });
    } else if (host !== "localhost" && !mockedPublicAddresses.has(host)) {
      redirect(host);
    }
  }
  return (originalConnect as (...a: unknown[]) => net.Socket).apply(this, args);
} as typeof net.Socket.prototype.connect;

export type Handler = (request: IncomingMessage, response: ServerResponse) => void;

export interface Loopback {
  readonly url: string;
  readonly port: number;
  /** Requests received, as "METHOD path". */
  readonly requests: string[];
  /** TCP connections accepted (a refused target must leave this at 0). */
  connections: number;
  readonly close: () => Promise<void>;
  readonly server: Server;
}

export const startServer = async (handler: Handler): Promise<Loopback> => {
  const server = createServer();
  const state: Loopback = {
    url: "",
    port: 0,
    requests: [],
    connections: 0,
    server,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  server.on("connection", () => {
    state.connections++;
  });
  server.on("request", (request, response) => {
    state.requests.push(`${request.method} ${request.url}`);
    handler(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(state, { url: `http://127.0.0.1:${port}`, port });
};

export const html = (body: string, title = "Books") =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`;

/** A route table: "GET /path" → handler; robots.txt answers 404 (allow all) unless routed. */
export const routes =
  (table: Record<string, Handler>): Handler =>
  (request, response) => {
    const path = (request.url ?? "/").split("?")[0] ?? "/";
    const handler = table[path];
    if (handler) return handler(request, response);
    response.writeHead(404, { "content-type": "text/plain" }).end("not found");
  };

export const sendHtml =
  (body: string, status = 200, headers: Record<string, string> = {}): Handler =>
  (_request, response) => {
    response.writeHead(status, { "content-type": "text/html; charset=utf-8", ...headers }).end(body);
  };

export const loopbackOnly: HttpFetcherConfig = {
  allowPrivateTargets: ["127.0.0.1/32"],
  retry: { maxAttempts: 1 },
  lookup: async () => [],
};

export const pageRequest = (url: string, extra: Partial<FetchRequest> = {}): FetchRequest => ({
  url,
  render: "static",
  proxy: "never",
  ignoreRobots: false,
  ...extra,
});

export interface FetcherHarness {
  readonly read: (request: FetchRequest) => Promise<Either.Either<FetchedPage, ReadFailed>>;
  readonly dispose: () => Promise<void>;
}

export const makeFetcher = (config: HttpFetcherConfig): FetcherHarness => {
  const runtime = ManagedRuntime.make(HttpFetcherLive(config));
  return {
    read: (request) => runtime.runPromise(Effect.either(Effect.flatMap(Fetcher, (fetcher) => fetcher.read(request)))),
    dispose: () => runtime.dispose(),
  };
};

/** Reads and expects a failure; returns it (the test then asserts its reason, status and finalUrl). */
export const readFailure = async (harness: FetcherHarness, request: FetchRequest): Promise<ReadFailed> => {
  const result = await harness.read(request);
  if (result._tag === "Right") throw new Error(`expected a failure, got a page from ${result.right.finalUrl}`);
  return result.left;
};

export const readPage = async (harness: FetcherHarness, request: FetchRequest): Promise<FetchedPage> => {
  const result = await harness.read(request);
  if (result._tag === "Left")
    throw new Error(`expected a page, got ${result.left.failure.reason}: ${result.left.message}`);
  return result.right;
};
