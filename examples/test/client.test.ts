import { startBooksSite } from "@gleaner/conformance";
import { startHost } from "@gleaner/koa";
import { expect } from "chai";
import { pino } from "pino";
import { booksThroughTheApi } from "../client/books-through-the-api.js";

describe("examples/client: the typed client against a running host", function () {
  this.timeout(120_000);

  it("creates a dataset, starts a run, waits for it and reads typed rows", async () => {
    const site = await startBooksSite();
    const host = await startHost({
      config: { port: 0, host: "127.0.0.1", allowPrivateTargets: ["127.0.0.1/32"] },
      logger: pino({ level: "silent" }),
    });
    try {
      const key = await host.createKey("client-example", 100);
      const { run, rows } = await booksThroughTheApi(host.url, key, site.url);
      expect(run.status).to.equal("succeeded");
      expect(run.rowDeltas).to.deep.equal({ new: 1000, changed: 0, gone: 0 });
      expect(rows).to.have.length(5);
      for (const row of rows) {
        expect(row.title).to.be.a("string").and.not.equal("");
        expect(row.price).to.be.a("number");
      }
    } finally {
      await host.close();
      await site.close();
    }
  });
});
