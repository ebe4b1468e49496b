import dgram from "node:dgram";
import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/**
 * A listener standing for an internal service on a refused address: an HTTP server that counts every
 * TCP connection (a CONNECT tunnel or a TURN-over-TCP allocation would show up here even without an
 * HTTP request) and records every request path.
 */
export interface TcpRecorder {
  /** `http://host:port` (IPv6 hosts in brackets). */
  readonly origin: string;
  readonly host: string;
  readonly port: number;
  readonly connections: () => number;
  readonly paths: string[];
  readonly close: () => Promise<void>;
}

export const startTcpRecorder = async (host: string): Promise<TcpRecorder> => {
  const paths: string[] = [];
  let connections = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    paths.push(req.url ?? "");
    res.writeHead(200, { "content-type": "text/html", "access-control-allow-origin": "*" });
    res.end("<p>internal</p>");
  });
  server.on("connection", (socket: Socket) => {
    connections++;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, host, () => resolve()));
  const { port } = server.address() as AddressInfo;
  const named = host.includes(":") ? `[${host}]` : host;
  return {
    origin: `http://${named}:${port}`,
    host: named,
    port,
    connections: () => connections,
    paths,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
};

/** A UDP socket on a refused address counting the datagrams it receives (STUN, TURN, DNS, QUIC…). */
export interface UdpRecorder {
  readonly host: string;
  readonly port: number;
  readonly datagrams: () => number;
  readonly close: () => Promise<void>;
}

export const startUdpRecorder = async (host: string): Promise<UdpRecorder> => {
  const socket = dgram.createSocket(host.includes(":") ? "udp6" : "udp4");
  let datagrams = 0;
  socket.on("message", () => {
    datagrams++;
  });
  await new Promise<void>((resolve) => socket.bind(0, host, () => resolve()));
  return {
    host: host.includes(":") ? `[${host}]` : host,
    port: socket.address().port,
    datagrams: () => datagrams,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
};
