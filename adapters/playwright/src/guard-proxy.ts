import {
  type AllowList,
  checkUrl,
  type DnsLookup,
  NoAddressError,
  type ProxyEndpoint,
  type ReadFailureReason,
  resolveSafeAddress,
  UnsafeTargetError,
} from "@gleaner/core";
import { createServer, type IncomingMessage, request as httpRequest, type ServerResponse } from "node:http";
import { request as httpsRequest } from "node:https";
import net, { type AddressInfo, type Socket } from "node:net";
import tls from "node:tls";

/**
 * Why a local forward proxy: Chromium follows redirects, opens WebSockets, runs service workers and
 * preconnects without asking Playwright's route() (measured: a redirect to a refused address reached it
 * with route() alone). Every connection the browser makes goes through this proxy instead (the context's
 * proxy with bypass `<-loopback>`), which applies the core target policy to each one, connects to the
 * address it checked (DNS pinned, no rebinding window), and chains to GLEANER_PROXY_URLS when the read's
 * route says so. One proxy per run and route (run-sessions.ts; per read without a run id) and per
 * robots.txt fetch; its records are forgotten between reads, so what it reports is that read's alone.
 */

/** Something the proxy refused or could not reach, keyed by `host:port` (all a CONNECT tunnel shows). */
export interface GuardRecord {
  readonly target: string;
  readonly reason: ReadFailureReason;
  readonly message: string;
}

export interface GuardProxy {
  /** `http://127.0.0.1:PORT`, for Chromium's or an APIRequestContext's `proxy.server`. */
  readonly server: string;
  /** The last record about `host:port` (see targetKey), if any. */
  readonly recordFor: (target: string) => GuardRecord | undefined;
  /** Drops every record: the next read through this proxy starts with none of the last one's. */
  readonly forget: () => void;
  readonly close: () => Promise<void>;
}

export interface GuardOptions {
  readonly allow: AllowList;
  readonly lookup: DnsLookup;
  /** null: connect directly; otherwise through this proxy (its credentials stay here, never in messages). */
  readonly upstream: ProxyEndpoint | null;
  readonly connectTimeoutMs: number;
}

/** `host:port` with the scheme's default port filled in, the key GuardRecords are filed under. */
export const targetKey = (url: URL): string =>
  `${url.hostname}:${url.port || (url.protocol === "https:" || url.protocol === "wss:" ? "443" : "80")}`;

const hopByHop = new Set(["proxy-connection", "proxy-authorization", "connection", "keep-alive", "upgrade", "te"]);

const proxyAuthorization = (upstream: URL): Record<string, string> =>
  upstream.username
    ? {
        "proxy-authorization": `Basic ${Buffer.from(
          `${decodeURIComponent(upstream.username)}:${decodeURIComponent(upstream.password)}`,
        ).toString("base64")}`,
      }
    : {};

/** Opens a CONNECT tunnel to `host:port` through an upstream proxy. */
const tunnelThrough = (upstream: URL, target: string, timeoutMs: number): Promise<Socket> =>
  new Promise((resolve, reject) => {
    const port = Number(upstream.port || (upstream.protocol === "https:" ? 443 : 80));
    const socket =
      upstream.protocol === "https:"
        ? tls.connect({ host: upstream.hostname, port, servername: upstream.hostname })
        : net.connect({ host: upstream.hostname, port });
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error("the proxy did not answer in time")));
    socket.once("error", reject);
    socket.once(upstream.protocol === "https:" ? "secureConnect" : "connect", () => {
      const auth = proxyAuthorization(upstream)["proxy-authorization"];
      socket.write(
        `CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n${auth ? `Proxy-Authorization: ${auth}\r\n` : ""}\r\n`,
      );
    });
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf("\r\n\r\n");
      if (end < 0) return;
      socket.off("data", onData);
      socket.setTimeout(0);
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head.toString("latin1"))?.[1] ?? 0);
      if (status !== 200) {
        socket.destroy();
        return reject(new Error(`the proxy answered ${status} to CONNECT`));
      }
      const rest = head.subarray(end + 4);
      if (rest.length > 0) socket.unshift(rest);
      resolve(socket);
    };
    socket.on("data", onData);
  });

const reasonOf = (error: unknown): ReadFailureReason => {
  if (error instanceof UnsafeTargetError) return "unsafe_target";
  const code = String((error as { code?: unknown })?.code ?? "");
  if (code === "ECONNRESET" || code === "EPIPE") return "connection_reset";
  if (code === "ETIMEDOUT" || /in time/.test(String((error as Error)?.message))) return "timeout";
  return "network";
};

export const startGuardProxy = async (options: GuardOptions): Promise<GuardProxy> => {
  const records = new Map<string, GuardRecord>();
  const sockets = new Set<Socket>();
  const upstream = options.upstream ? new URL(options.upstream.url) : null;
  const note = (target: string, error: unknown): GuardRecord => {
    const message =
      error instanceof UnsafeTargetError || error instanceof NoAddressError
        ? error.message
        : upstream
          ? `the proxy ${options.upstream?.redacted} failed: ${(error as Error)?.message ?? String(error)}`
          : `${target}: ${(error as Error)?.message ?? String(error)}`;
    const record: GuardRecord = { target, reason: reasonOf(error), message };
    records.set(target, record);
    return record;
  };
  /** Checks the URL, then every address of its host; resolves to the one address to connect to. */
  const admit = async (url: URL): Promise<string> => {
    const verdict = checkUrl(url, options.allow);
    if (!verdict.allowed) throw new UnsafeTargetError(url.hostname, verdict.why);
    return resolveSafeAddress(url.hostname, options.allow, options.lookup);
  };

  const forward = (req: IncomingMessage, res: ServerResponse): void => {
    let url: URL;
    try {
      url = new URL(req.url ?? "");
      if (url.protocol !== "http:") throw new Error("not http");
    } catch {
      res.writeHead(400).end();
      return;
    }
    const key = targetKey(url);
    admit(url).then(
      (address) => {
        const headers: Record<string, string | string[]> = {};
        for (const [name, value] of Object.entries(req.headers)) {
          if (value !== undefined && !hopByHop.has(name)) headers[name] = value;
        }
        const outgoing = upstream
          ? (upstream.protocol === "https:" ? httpsRequest : httpRequest)({
              host: upstream.hostname,
              port: Number(upstream.port || (upstream.protocol === "https:" ? 443 : 80)),
              method: req.method,
              path: url.href,
              headers: { ...headers, ...proxyAuthorization(upstream) },
            })
          : httpRequest({
              host: address,
              port: Number(url.port || 80),
              method: req.method,
              path: `${url.pathname}${url.search}`,
              headers: { ...headers, host: url.host },
            });
        outgoing.setTimeout(options.connectTimeoutMs * 3, () => outgoing.destroy(new Error("no answer in time")));
        outgoing.on("response", (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.statusMessage, answer.rawHeaders);
          answer.pipe(res);
          answer.on("error", () => res.destroy());
        });
        // No response at all: close the browser's connection so it sees a transport failure, never a
        // made-up status the classifier would mistake for the site's answer.
        outgoing.on("error", (error) => {
          note(key, error);
          res.destroy();
        });
        req.pipe(outgoing);
      },
      (error: unknown) => {
        note(key, error);
        res.destroy();
      },
    );
  };

  const tunnel = (req: IncomingMessage, client: Socket, head: Buffer): void => {
    sockets.add(client);
    client.on("close", () => sockets.delete(client));
    client.on("error", () => client.destroy());
    let url: URL;
    try {
      url = new URL(`https://${req.url ?? ""}`);
    } catch {
      client.end("HTTP/1.1 400 Bad Request\r\n\r\n");
      return;
    }
    const key = targetKey(url);
    const refuse = (error: unknown) => {
      note(key, error);
      client.end(`HTTP/1.1 ${error instanceof UnsafeTargetError ? 403 : 502} Refused\r\n\r\n`);
    };
    admit(url).then((address) => {
      const opened = upstream
        ? tunnelThrough(upstream, key, options.connectTimeoutMs)
        : new Promise<Socket>((resolve, reject) => {
            const socket = net.connect({ host: address, port: Number(url.port || 443) });
            socket.setTimeout(options.connectTimeoutMs, () => socket.destroy(new Error("no connection in time")));
            socket.once("connect", () => {
              socket.setTimeout(0);
              resolve(socket);
            });
            socket.once("error", reject);
          });
      opened.then((server) => {
        sockets.add(server);
        server.on("close", () => sockets.delete(server));
        server.on("error", () => client.destroy());
        client.on("close", () => server.destroy());
        client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
        if (head.length > 0) server.write(head);
        server.pipe(client);
        client.pipe(server);
      }, refuse);
    }, refuse);
  };

  const server = createServer(forward);
  server.on("connect", tunnel);
  // A plain-HTTP WebSocket upgrade through the proxy: WebSockets are not part of reading a page.
  server.on("upgrade", (req: IncomingMessage, socket: Socket) => {
    records.set(req.headers.host ?? "", { target: req.headers.host ?? "", reason: "unsafe_target", message: "" });
    socket.destroy();
  });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    server: `http://127.0.0.1:${port}`,
    recordFor: (target) => records.get(target),
    forget: () => records.clear(),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
};
