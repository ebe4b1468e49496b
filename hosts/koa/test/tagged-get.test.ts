import { validDataset } from "@gleaner/conformance";
import { expect } from "chai";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import Koa from "koa";
import { type RunningHost, routes } from "@gleaner/koa";
import { buildRouter } from "../src/api/koa.js";
import { runExit } from "../src/http/runtime.js";
import { startQuietHost } from "./support/quiet-host.js";

/**
 * A rows page answered from its tag (304, or the bytes kept for the tag) does only what the tag
 * needs: it never parses the query (decision 0042). Counted on Koa's `ctx.query`, the parse.
 */
describe("An authenticated tagged GET", function () {
  this.timeout(30_000);
  let host: RunningHost;
  let key: string;
  let rowsUrl: string;
  let queryReads = 0;
  let server: ReturnType<Koa["listen"]>;
  before(async () => {
    host = await startQuietHost();
    key = await host.createKey("tagged-get", 10);
    const created = await fetch(`${host.url}/v1/datasets`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(validDataset()),
    });
    const { dataset } = (await created.json()) as { dataset: { id: string } };
    // The host's route table on an app of its own, so that reads of the parsed query can be counted.
    const app = new Koa();
    app.use(async (ctx, next) => {
      const request = ctx.request;
      let proto = Object.getPrototypeOf(request);
      while (!Object.hasOwn(proto, "query")) proto = Object.getPrototypeOf(proto);
      const parsed = Object.getOwnPropertyDescriptor(proto, "query")!.get!;
      Object.defineProperty(request, "query", {
        get() {
          queryReads++;
          return parsed.call(request);
        },
      });
      await next();
    });
    app.use(buildRouter(routes, { runtime: host.runtime, bodyLimitBytes: 1024 }).routes());
    server = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    const { port } = server.address() as { port: number };
    rowsUrl = `http://127.0.0.1:${port}/v1/datasets/${dataset.id}/rows?limit=5&status=new`;
  });
  after(async () => {
    server?.close();
    await host?.close();
  });

  it("reads the query for the first answer only: the cached bytes and the 304 are answered from the tag", async () => {
    const headers = { authorization: `Bearer ${key}` };
    const first = await fetch(rowsUrl, { headers });
    expect(first.status, await first.clone().text()).to.equal(200);
    const tag = first.headers.get("etag")!;
    const body = await first.text();
    expect(queryReads).to.equal(1);
    const cached = await fetch(rowsUrl, { headers });
    expect(cached.status).to.equal(200);
    expect(cached.headers.get("etag")).to.equal(tag);
    expect(await cached.text()).to.equal(body);
    const unchanged = await fetch(rowsUrl, { headers: { ...headers, "if-none-match": tag } });
    expect(unchanged.status).to.equal(304);
    expect(queryReads).to.equal(1);
  });

  it("gets a finished opening back without a promise when the store answers at once, and waits otherwise", async () => {
    const now = runExit(host.runtime, Effect.succeed(1));
    expect(now).to.not.be.instanceOf(Promise);
    expect(Exit.isExit(now) && Exit.isSuccess(now) && now.value).to.equal(1);
    const later = runExit(host.runtime, Effect.as(Effect.sleep("5 millis"), 2));
    expect(later).to.be.instanceOf(Promise);
    const exit = await later;
    expect(Exit.isSuccess(exit) && exit.value).to.equal(2);
  });
});
