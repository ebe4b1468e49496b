import { type BooksSite, makeClient, startBooksSite } from "@gleaner/conformance";
import { DocumentParser } from "@gleaner/core";
import { parseWithHtmlparser2 } from "@gleaner/htmlparser2";
import { type RunningHost, startHost } from "@gleaner/koa";
import { MemoryStoreLive } from "@gleaner/memory";
import { expect } from "chai";
import * as Layer from "effect/Layer";
import { pino } from "pino";

// A suggestion's previews read the page it was made from: one request parses that page once, since a
// large page takes a few hundred milliseconds to parse on the thread serving every request.
describe("suggestions parse their page once a request", function () {
  this.timeout(60_000);
  let site: BooksSite;
  let host: RunningHost;
  const parsed: string[] = [];

  before(async () => {
    site = await startBooksSite();
    const counting = Layer.succeed(DocumentParser, {
      parse: (html: string, url: string) => {
        parsed.push(url);
        return parseWithHtmlparser2(html, url);
      },
    });
    host = await startHost({
      overrides: { store: MemoryStoreLive, parser: counting },
      config: { port: 0, host: "127.0.0.1", allowPrivateTargets: ["127.0.0.1/32"] },
      logger: pino({ level: "silent" }),
    });
  });
  after(async () => {
    await host?.close();
    await site?.close();
  });

  it("offers several suggestions, each previewed, from one parse of the page", async () => {
    const client = makeClient(host.url, await host.createKey("suggest-owner", 10));
    const answer = await client.post("/v1/sources/suggest", { url: site.pageUrl(1) });
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    const suggestions = answer.body.suggestions as Array<{ preview: { records: unknown[] } }>;
    expect(suggestions.length).to.be.above(1);
    for (const suggestion of suggestions) expect(suggestion.preview.records).to.not.be.empty;
    expect(parsed.filter((url) => url === site.pageUrl(1))).to.have.length(1);
    // Another request parses afresh: nothing is kept between requests.
    await client.post("/v1/sources/suggest", { url: site.pageUrl(1) });
    expect(parsed.filter((url) => url === site.pageUrl(1))).to.have.length(2);
  });
});
