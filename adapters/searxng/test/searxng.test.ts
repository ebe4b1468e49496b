import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "chai";
import * as Effect from "effect/Effect";
import { afterEach, describe, it } from "mocha";
import { makeSearxng } from "../src/index.js";

type Reply = (res: ServerResponse) => void;

const startSearxng = async (reply: Reply) => {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(req.url ?? "");
    reply(res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};

/** SearXNG's JSON answer shape (trimmed from a real instance's `format=json` output). */
const answer = {
  query: "publishers catalogue",
  number_of_results: 0,
  results: [
    {
      url: "https://example.org/publishers",
      title: "Publishers",
      content: "A list of publishers",
      engine: "duckduckgo",
      engines: ["duckduckgo"],
      score: 1,
      category: "general",
    },
    { url: "https://example.org/a", title: "A", content: null, engine: "bing", score: 0.5 },
    { url: "https://example.org/b", title: "B", engine: "bing", score: 0.4 },
  ],
  answers: [],
  corrections: [],
  infoboxes: [],
  suggestions: [],
  unresponsive_engines: [],
};

describe("@gleaner/searxng against a loopback SearXNG JSON API", () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  it("asks /search?q=…&format=json and returns url, title and snippet, at most `limit`", async () => {
    const server = await startSearxng((res) =>
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer)),
    );
    close = server.close;
    const results = await Effect.runPromise(makeSearxng({ url: server.url }).search("publishers & more", 2));
    expect(server.seen).to.deep.equal(["/search?q=publishers+%26+more&format=json"]);
    expect(results).to.deep.equal([
      { url: "https://example.org/publishers", title: "Publishers", snippet: "A list of publishers" },
      { url: "https://example.org/a", title: "A", snippet: "" },
    ]);
  });

  it("explains a 403 (the json format is off in SearXNG's settings)", async () => {
    const server = await startSearxng((res) => res.writeHead(403).end("Forbidden"));
    close = server.close;
    const failure = await Effect.runPromise(Effect.flip(makeSearxng({ url: server.url }).search("q", 5)));
    expect(failure._tag).to.equal("SearchFailed");
    expect(failure.message).to.contain("search.formats");
  });

  it("fails with SearchFailed on an answer without results, and on a timeout", async () => {
    const bad = await startSearxng((res) => res.writeHead(200).end(JSON.stringify({ query: "q" })));
    close = bad.close;
    expect((await Effect.runPromise(Effect.flip(makeSearxng({ url: bad.url }).search("q", 5))))._tag).to.equal(
      "SearchFailed",
    );
    await bad.close();
    const slow = await startSearxng(() => {});
    close = slow.close;
    const failure = await Effect.runPromise(Effect.flip(makeSearxng({ url: slow.url, timeoutMs: 150 }).search("q", 5)));
    expect(failure.message).to.contain("in time");
  });

  it("stops reading an answer past its bound, whether endless or declared huge (SearchFailed saying so)", async () => {
    let sent = 0;
    const endless = await startSearxng((res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"results":[');
      const result = `${JSON.stringify({ url: "https://example.org/a", title: "A", content: "x".repeat(60_000) })},`;
      const pump = () => {
        while (!res.destroyed && sent < 1024 * 1024 * 1024) {
          sent += result.length;
          if (!res.write(result)) return void res.once("drain", pump);
        }
      };
      pump();
    });
    close = endless.close;
    const failure = await Effect.runPromise(
      Effect.flip(makeSearxng({ url: endless.url, timeoutMs: 30_000 }).search("q", 5)),
    );
    expect(failure.message).to.match(/larger than \d+ bytes/);
    expect(sent, "bytes the engine could send before it was dropped").to.be.below(64 * 1024 * 1024);
    await endless.close();
    const declared = await startSearxng((res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": String(10 * 1024 ** 3) });
      res.write("{");
    });
    close = declared.close;
    const refused = await Effect.runPromise(
      Effect.flip(makeSearxng({ url: declared.url, timeoutMs: 30_000 }).search("q", 5)),
    );
    expect(refused.message).to.match(/larger than \d+ bytes/);
  });
});
