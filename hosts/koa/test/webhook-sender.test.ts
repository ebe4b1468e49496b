import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type DeliveryOutcome, isRetryable, newWebhookSecret, parseAllowList, RunFinishedPayload } from "@gleaner/core";
import { expect } from "chai";
import * as Schema from "effect/Schema";
import { Webhook } from "standardwebhooks";
import { makeWebhookSender } from "../src/webhooks/sender.js";

interface Received {
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** A loopback receiver whose answer each test chooses by path. */
const startReceiver = async (answer: (req: IncomingMessage, res: ServerResponse) => void) => {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += String(chunk);
    });
    req.on("end", () => {
      received.push({ path: req.url ?? "", headers: req.headers as Record<string, string>, body });
      answer(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
};

const payload = Schema.decodeSync(RunFinishedPayload)({
  type: "run.finished",
  timestamp: "2026-11-22T21:00:00.000Z",
  data: {
    runId: "5f0c6f0e-1c1e-4a53-9d1e-6f2b9e1d7a10",
    datasetId: "0b8a3c55-9f5e-4a0c-8a65-3c1d2e4f5a6b",
    status: "succeeded",
    rowDeltas: { new: 3, changed: 1, gone: 0 },
    creditsCharged: 3,
  },
});

const loopbackOnly = parseAllowList("127.0.0.1");
const systemLookup = async (host: string) => [{ address: host === "localhost" ? "127.0.0.1" : host, family: 4 }];

describe("webhook sender (Standard Webhooks)", () => {
  const sender = makeWebhookSender({
    allow: loopbackOnly,
    lookup: systemLookup,
    timeoutMs: 1500,
    maxResponseBytes: 64 * 1024,
  });
  after(() => sender.close());

  it("signs deliveries so the standardwebhooks verifier accepts them, with one webhook-id across retries", async () => {
    let receiverCalls = 0;
    const receiver = await startReceiver((req, res) => {
      res.statusCode = req.url === "/flaky" && receiverCalls++ === 0 ? 500 : 204;
      res.end();
    });
    try {
      const secret = newWebhookSecret();
      const message = { id: "msg_run_5f0c6f0e", payload };
      const first = await sender.send(`${receiver.url}/flaky`, secret, message);
      expect(first).to.include({ kind: "answered", status: 500 });
      expect(isRetryable(first)).to.equal(true);
      const retry = await sender.send(`${receiver.url}/flaky`, secret, message);
      expect(retry).to.include({ kind: "answered", status: 204 });
      expect(receiver.received).to.have.length(2);
      for (const delivery of receiver.received) {
        expect(delivery.headers["webhook-id"]).to.equal("msg_run_5f0c6f0e");
        expect(new Webhook(secret).verify(delivery.body, delivery.headers)).to.deep.equal(payload);
      }
      // Another secret does not verify: the signature really depends on it.
      expect(() =>
        new Webhook(newWebhookSecret()).verify(receiver.received[0]!.body, receiver.received[0]!.headers),
      ).to.throw();
    } finally {
      await receiver.close();
    }
  });

  it("retries 5xx, 429, a dropped connection and a silent receiver; never other 4xx or a redirect", async () => {
    const receiver = await startReceiver((req, res) => {
      if (req.url === "/drop") return void req.socket.destroy();
      if (req.url === "/silent") return; // never answers
      if (req.url === "/redirect") {
        res.writeHead(302, { location: "/landed" });
        return void res.end();
      }
      res.statusCode = Number(req.url?.slice(1));
      res.end();
    });
    try {
      const send = (path: string) =>
        sender.send(`${receiver.url}${path}`, newWebhookSecret(), { id: "msg_1", payload });
      const outcomes: Record<string, DeliveryOutcome> = {};
      for (const path of ["/503", "/429", "/404", "/410", "/redirect", "/drop", "/silent"])
        outcomes[path] = await send(path);
      expect(Object.fromEntries(Object.entries(outcomes).map(([path, o]) => [path, isRetryable(o)]))).to.deep.equal({
        "/503": true,
        "/429": true,
        "/404": false,
        "/410": false,
        "/redirect": false,
        "/drop": true,
        "/silent": true,
      });
      expect(outcomes["/drop"]).to.include({ kind: "failed", reason: "network" });
      expect(outcomes["/silent"]).to.include({ kind: "failed", reason: "timeout" });
      expect(outcomes["/redirect"]).to.include({ kind: "answered", status: 302 });
      expect(receiver.received.map((r) => r.path)).to.not.include("/landed");
    } finally {
      await receiver.close();
    }
  });

  it("drops a huge answer after the body limit instead of reading it", async () => {
    let written = 0;
    let closed!: (finished: boolean) => void;
    const closedEarly = new Promise<boolean>((resolve) => {
      closed = (finished) => resolve(!finished);
    });
    const receiver = await startReceiver((_req, res) => {
      res.writeHead(200, { "content-type": "application/octet-stream" });
      const chunk = Buffer.alloc(64 * 1024, 120);
      res.on("close", () => closed(res.writableFinished));
      const pump = () => {
        while (written < 200 * 1024 * 1024) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
        res.end();
      };
      pump();
    });
    try {
      const outcome = await sender.send(`${receiver.url}/huge`, newWebhookSecret(), { id: "msg_2", payload });
      expect(outcome).to.include({ kind: "answered", status: 200 });
      // The receiver sees its connection dropped before it could finish writing.
      expect(await closedEarly).to.equal(true);
      expect(written).to.be.below(200 * 1024 * 1024);
    } finally {
      await receiver.close();
    }
  });

  it("refuses private targets by literal and by resolved address, before any byte is sent", async () => {
    const receiver = await startReceiver((_req, res) => res.end());
    const strict = makeWebhookSender({
      allow: parseAllowList(""),
      // A public-looking name that resolves to the loopback receiver: caught at connect time.
      lookup: async () => [{ address: "127.0.0.1", family: 4 }],
      timeoutMs: 1500,
      maxResponseBytes: 1024,
    });
    try {
      const port = new URL(receiver.url).port;
      const literal = await strict.send(receiver.url, newWebhookSecret(), { id: "msg_3", payload });
      expect(literal).to.include({ kind: "failed", reason: "unsafe_target" });
      const rebound = await strict.send(`http://hooks.example.com:${port}/`, newWebhookSecret(), {
        id: "msg_4",
        payload,
      });
      expect(rebound).to.include({ kind: "failed", reason: "unsafe_target" });
      expect(isRetryable(rebound)).to.equal(false);
      expect(receiver.received).to.have.length(0);
    } finally {
      await strict.close();
      await receiver.close();
    }
  });
});
