import type { GenerationRequest } from "@gleaner/core";
import { expect } from "chai";
import * as Effect from "effect/Effect";
import * as Redacted from "effect/Redacted";
import { afterEach, describe, it } from "mocha";
import { makeOpenAiModel } from "../src/index.js";
import { completion, type Reply, silent, startChatServer, status } from "./chat-server.js";

const schema = {
  type: "object",
  properties: { answer: { type: "string" }, count: { type: "number" } },
  required: ["answer", "count"],
  additionalProperties: false,
};
const request: GenerationRequest = {
  task: "planning",
  subject: null,
  system: "You plan research.",
  user: "Which publishers have more than 10 titles?",
  schema,
};

describe("@gleaner/openai against a loopback Chat Completions server", () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });
  const start = async (replies: Parameters<typeof startChatServer>[0]) => {
    const server = await startChatServer(replies);
    close = server.close;
    return server;
  };
  const model = (url: string, extra: { timeoutMs?: number; apiKey?: string } = {}) =>
    makeOpenAiModel({
      url,
      apiKey: extra.apiKey ? Redacted.make(extra.apiKey) : null,
      model: "llama3.1:8b",
      timeoutMs: extra.timeoutMs ?? 5000,
      maxRetries: 3,
      retryBaseMs: 5,
    });

  it("sends the model, both messages and a strict json_schema, and returns the decoded answer with usage", async () => {
    const server = await start([completion(JSON.stringify({ answer: "Penguin", count: 12 }))]);
    const answer = await Effect.runPromise(model(server.url, { apiKey: "sk-secret" }).generate(request));
    expect(answer).to.deep.equal({
      output: { answer: "Penguin", count: 12 },
      modelId: "served-model-2026",
      usage: { inputTokens: 120, outputTokens: 30 },
    });
    const [sent] = server.received;
    expect(sent?.path).to.equal("/v1/chat/completions");
    expect(sent?.authorization).to.equal("Bearer sk-secret");
    expect(sent?.body.model).to.equal("llama3.1:8b");
    expect(sent?.body.messages).to.deep.equal([
      { role: "system", content: "You plan research." },
      { role: "user", content: "Which publishers have more than 10 titles?" },
    ]);
    expect(sent?.body.response_format).to.deep.equal({
      type: "json_schema",
      json_schema: { name: "gleaner_planning", schema, strict: true },
    });
  });

  it("retries a 429 with backoff and then succeeds", async () => {
    const server = await start([status(429), status(503), completion(JSON.stringify({ answer: "a", count: 1 }))]);
    const answer = await Effect.runPromise(model(server.url).generate(request));
    expect(answer.output).to.deep.equal({ answer: "a", count: 1 });
    expect(server.received).to.have.length(3);
  });

  it("gives up after its retries with ModelRateLimited", async () => {
    const server = await start([status(429), status(429), status(429), status(429), status(429)]);
    const failure = await Effect.runPromise(Effect.flip(model(server.url).generate(request)));
    expect(failure._tag).to.equal("ModelRateLimited");
    expect(server.received).to.have.length(4);
  });

  it("reports a server that keeps failing as ModelServerFailed with its status, after its retries", async () => {
    const server = await start([status(503), status(503), status(503), status(503)]);
    const failure = await Effect.runPromise(Effect.flip(model(server.url).generate(request)));
    expect(failure).to.deep.include({ _tag: "ModelServerFailed", status: 503 });
    expect(server.received).to.have.length(4);
  });

  it("reports a 404 as the model name being unknown (ModelNotFound), without retrying", async () => {
    const server = await start([status(404)]);
    const failure = await Effect.runPromise(Effect.flip(model(server.url).generate(request)));
    expect(failure).to.deep.include({ _tag: "ModelNotFound", model: "llama3.1:8b" });
    expect(server.received).to.have.length(1);
  });

  it("asks for stable answers: temperature 0, a seed, and a bound on output tokens", async () => {
    const server = await start([completion(JSON.stringify({ answer: "a", count: 1 }))]);
    await Effect.runPromise(model(server.url).generate(request));
    expect(server.received[0]?.body).to.deep.include({ temperature: 0, seed: 7, max_tokens: 4096 });
  });

  it("fails with ModelTimeout when the server does not answer in time", async () => {
    const server = await start([silent]);
    const failure = await Effect.runPromise(Effect.flip(model(server.url, { timeoutMs: 200 }).generate(request)));
    expect(failure._tag).to.equal("ModelTimeout");
  });

  it("stops reading an answer past its bound (endless or declared huge): ModelInvalidOutput, not retried", async () => {
    let sent = 0;
    const endless: Reply = (_request, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"id":"x","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"');
      const chunk = "a".repeat(64 * 1024);
      const pump = () => {
        while (!res.destroyed && sent < 1024 * 1024 * 1024) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
      };
      pump();
    };
    const declared: Reply = (_request, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": String(10 * 1024 ** 3) });
      res.write("{");
    };
    const server = await start([endless, declared]);
    const first = await Effect.runPromise(Effect.flip(model(server.url, { timeoutMs: 30_000 }).generate(request)));
    expect(first._tag).to.equal("ModelInvalidOutput");
    expect(first.message).to.match(/larger than \d+ bytes/);
    expect(sent, "bytes the server could send before it was dropped").to.be.below(64 * 1024 * 1024);
    const second = await Effect.runPromise(Effect.flip(model(server.url, { timeoutMs: 30_000 }).generate(request)));
    expect(second._tag).to.equal("ModelInvalidOutput");
    expect(server.received).to.have.length(2);
  });

  it("refuses malformed JSON and JSON that does not match the schema (ModelInvalidOutput)", async () => {
    const server = await start([completion("{not json"), completion(JSON.stringify({ answer: "x" }))]);
    const first = await Effect.runPromise(Effect.flip(model(server.url).generate(request)));
    expect(first._tag).to.equal("ModelInvalidOutput");
    const second = await Effect.runPromise(Effect.flip(model(server.url).generate(request)));
    expect(second._tag).to.equal("ModelInvalidOutput");
    expect(second.message).to.contain("count");
  });

  it("reports a refusal as ModelRefused", async () => {
    const server = await start([completion(null, { refusal: "I can't help with that." })]);
    const failure = await Effect.runPromise(Effect.flip(model(server.url).generate(request)));
    expect(failure._tag).to.equal("ModelRefused");
  });

  it("falls back to JSON mode with the schema in the prompt when the server rejects json_schema", async () => {
    // Refused with and without the seed: json_schema itself is what the server rejects.
    const server = await start([
      status(400, "response_format json_schema is not supported"),
      status(400, "response_format json_schema is not supported"),
      completion(JSON.stringify({ answer: "b", count: 2 })),
      completion(JSON.stringify({ answer: "c", count: 3 })),
    ]);
    const m = model(server.url, { apiKey: "sk-never-shown" });
    expect((await Effect.runPromise(m.generate(request))).output).to.deep.equal({ answer: "b", count: 2 });
    expect(server.received[2]?.body.response_format).to.deep.equal({ type: "json_object" });
    const messages = (server.received[2]?.body.messages ?? []) as Array<{ content: string }>;
    const system = messages[0]?.content ?? "";
    expect(system).to.contain(JSON.stringify(schema));
    // Remembered: the next request goes straight to JSON mode.
    await Effect.runPromise(m.generate(request));
    expect(server.received[3]?.body.response_format).to.deep.equal({ type: "json_object" });
  });

  it("asks again without the seed when the server rejects it, and remembers that", async () => {
    const server = await start([
      status(400, "unknown field: seed"),
      completion(JSON.stringify({ answer: "b", count: 2 })),
      completion(JSON.stringify({ answer: "c", count: 3 })),
    ]);
    const m = model(server.url);
    expect((await Effect.runPromise(m.generate(request))).output).to.deep.equal({ answer: "b", count: 2 });
    expect(server.received[0]?.body).to.have.property("seed");
    expect(server.received[1]?.body).to.not.have.property("seed");
    expect(server.received[1]?.body.response_format).to.deep.include({ type: "json_schema" });
    await Effect.runPromise(m.generate(request));
    expect(server.received[2]?.body).to.not.have.property("seed");
  });

  it("never puts the API key in a failure", async () => {
    const server = await start([status(401, "bad key sk-never-shown")]);
    const failure = await Effect.runPromise(
      Effect.flip(model(server.url, { apiKey: "sk-never-shown" }).generate(request)),
    );
    expect(failure._tag).to.equal("ModelRefused");
    expect(JSON.stringify(failure) + failure.message).not.to.contain("sk-never-shown");
  });
});
