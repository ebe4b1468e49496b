import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";

export interface Delivery {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** The payload when the signature verified with the path's secret; null when it did not (or no secret was set). */
  readonly verified: { readonly type: string; readonly data: Record<string, unknown> } | null;
}

/**
 * What the receiver does with a request: answer a status, drop the connection without answering, or
 * hang (never answer; the sender's timeout ends it).
 */
export type ReceiverAnswer = number | "drop" | "hang";

/**
 * A loopback webhook receiver: records every request, verifies it with the `standardwebhooks`
 * package's Webhook.verify against the secret registered for its path, and answers what the test
 * chose for that path and attempt (204 by default).
 */
export const startWebhookReceiver = async () => {
  const deliveries: Delivery[] = [];
  const secrets = new Map<string, string>();
  const answers = new Map<string, (attempt: number) => ReceiverAnswer>();
  /** Requests left hanging and not yet given up by the sender, now and at most, per path. */
  const hanging = new Map<string, { now: number; most: number }>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const path = req.url ?? "/";
      const body = Buffer.concat(chunks).toString("utf8");
      const secret = secrets.get(path);
      let verified: Delivery["verified"] = null;
      try {
        if (secret)
          verified = new Webhook(secret).verify(body, req.headers as Record<string, string>) as Delivery["verified"];
      } catch {
        verified = null;
      }
      const attempt = deliveries.filter((d) => d.path === path).length + 1;
      deliveries.push({ path, headers: req.headers, body, verified });
      const answer = answers.get(path)?.(attempt) ?? 204;
      if (answer === "drop") req.socket.destroy();
      else if (answer === "hang") {
        const count = hanging.get(path) ?? { now: 0, most: 0 };
        count.now++;
        count.most = Math.max(count.most, count.now);
        hanging.set(path, count);
        req.socket.once("close", () => count.now--);
      } else res.writeHead(answer).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    deliveries,
    /** The most requests to `path` left hanging at once. */
    mostHanging: (path: string) => hanging.get(path)?.most ?? 0,
    /** Deliveries to one path, in arrival order. */
    at: (path: string) => deliveries.filter((d) => d.path === path),
    /** The secret deliveries to `path` are verified with, and (optionally) how the path answers each attempt. */
    expect: (path: string, secret: string, answer?: (attempt: number) => ReceiverAnswer) => {
      secrets.set(path, secret);
      if (answer) answers.set(path, answer);
    },
    /** Resolves once `count` deliveries reached `path`; rejects after `timeoutMs`. */
    waitFor: async (path: string, count: number, timeoutMs = 30_000): Promise<Delivery[]> => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const got = deliveries.filter((d) => d.path === path);
        if (got.length >= count) return got;
        if (Date.now() > deadline)
          throw new Error(`${got.length} of ${count} deliveries reached ${path} in ${timeoutMs} ms.`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};

export type WebhookReceiver = Awaited<ReturnType<typeof startWebhookReceiver>>;
