import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One request the loopback Chat Completions server received. */
export interface Received {
  readonly path: string;
  readonly authorization: string | undefined;
  readonly body: Record<string, unknown>;
}

export type Reply = (request: Received, res: ServerResponse) => void;

/** A loopback server speaking the Chat Completions wire format, answering with scripted replies. */
export const startChatServer = async (replies: Reply[]) => {
  const received: Received[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let text = "";
    req.on("data", (chunk) => {
      text += chunk;
    });
    req.on("end", () => {
      const request = { path: req.url ?? "", authorization: req.headers.authorization, body: JSON.parse(text || "{}") };
      received.push(request);
      const reply = replies.shift();
      if (!reply) {
        res.writeHead(500).end();
        return;
      }
      reply(request, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};

/** A Chat Completions answer whose message content is `content`. */
export const completion =
  (content: string | null, extra: { refusal?: string; finish_reason?: string; model?: string } = {}): Reply =>
  (_request, res) => {
    res.writeHead(200, { "content-type": "application/json" }).end(
      JSON.stringify({
        id: "chatcmpl-1",
        object: "chat.completion",
        created: 1_700_000_000,
        model: extra.model ?? "served-model-2026",
        choices: [
          {
            index: 0,
            message: { role: "assistant", content, refusal: extra.refusal ?? null },
            finish_reason: extra.finish_reason ?? "stop",
          },
        ],
        usage: { prompt_tokens: 120, completion_tokens: 30, total_tokens: 150 },
      }),
    );
  };

export const status =
  (code: number, message = "error"): Reply =>
  (_request, res) => {
    res.writeHead(code, { "content-type": "application/json" }).end(JSON.stringify({ error: { message, type: "x" } }));
  };

/** Never answers within the client's time limit. */
export const silent: Reply = () => {};
