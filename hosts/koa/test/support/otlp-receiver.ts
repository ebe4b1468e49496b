import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface Received {
  readonly contentType: string;
  readonly body: Buffer;
}

/** A loopback OTLP/HTTP trace receiver: keeps every export it is sent at /v1/traces. */
export const startOtlpReceiver = async () => {
  const received: Received[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      if (request.method === "POST" && request.url === "/v1/traces") {
        received.push({ contentType: request.headers["content-type"] ?? "", body: Buffer.concat(chunks) });
      }
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};

export interface Span {
  readonly name: string;
  readonly traceId: string;
  readonly spanId: string;
  /** The span this one is under; empty for a trace's root. */
  readonly parentSpanId: string;
  readonly attributes: Record<string, unknown>;
}

/** The spans of OTLP/JSON exports, each with its attributes as plain values. */
export const spansOf = (received: ReadonlyArray<Received>): Span[] =>
  received.flatMap((r) =>
    (JSON.parse(r.body.toString("utf8")).resourceSpans ?? []).flatMap((rs: any) =>
      rs.scopeSpans.flatMap((ss: any) =>
        ss.spans.map((span: any) => ({
          name: span.name,
          traceId: span.traceId,
          spanId: span.spanId,
          parentSpanId: span.parentSpanId ?? "",
          attributes: Object.fromEntries(
            (span.attributes ?? []).map((a: any) => [a.key, Object.values(a.value ?? {})[0]]),
          ),
        })),
      ),
    ),
  );

/** Polls `check` every 50 ms until it holds; fails naming `what` after `ms`. */
export const until = async (what: string, check: () => boolean, ms = 20_000) => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};
