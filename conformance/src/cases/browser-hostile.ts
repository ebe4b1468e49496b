import { expect } from "chai";
import { allowMs, after, before, describe, it } from "../runner.js";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type Body, browserListDataset } from "../bodies.js";
import { runToEnd } from "../books.js";
import type { Client } from "../client.js";
import type { SuiteContext } from "../context.js";

/** The browser fetcher's default render budget is 30 s; a run of one hung page ends soon after. */
const RUN_TIMEOUT_MS = 120_000;
/**
 * How late `/healthz` may answer while Chromium works on a hostile page. It answers in ~1 ms when idle and
 * took 2.5 s on a machine running three test suites at once; a host the page blocked would answer only when
 * the 30 s render budget ends, so a third of that tells the two apart on any machine.
 */
const HEALTHZ_BOUND_MS = 10_000;

const pages: Record<string, string> = {
  // Never yields: `load` never fires and the DOM can never be read.
  "/loop.html": "<ol><li class='item'><b>never</b></li></ol><script>while (true) {}</script>",
  // Memory outside the JavaScript heap, without bound: only the renderer memory cap stops it.
  "/bomb.html":
    "<ol><li class='item'><b>never</b></li></ol><script>var kept = []; for (;;) kept.push(new Uint8Array(32 * 1024 * 1024).fill(7));</script>",
};

const dataset = (url: string): Body => browserListDataset("Hostile", url);

/** Asks `/healthz` every 100 ms until `work` settles; resolves to the slowest answer's time in ms. */
const slowestHealthzWhile = async (client: Client, work: Promise<unknown>): Promise<number> => {
  let slowest = 0;
  let running = true;
  void work.finally(() => {
    running = false;
  });
  while (running) {
    const started = performance.now();
    const answer = await client.get("/healthz");
    expect(answer.status).to.equal(200);
    slowest = Math.max(slowest, performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return slowest;
};

/**
 * Pages that attack the browser (SPEC.md readFailure `limit_exceeded`): a run of one ends failed with
 * the reason on its coverage check, nothing is charged, and the API keeps answering meanwhile.
 */
export const browserHostileCases = (ctx: SuiteContext): void => {
  describe("hostile pages in the browser", function () {
    allowMs(this, RUN_TIMEOUT_MS + 30_000);
    let server: Server;
    let origin = "";
    before(async () => {
      server = createServer((req, res) => {
        const page = pages[req.url ?? ""];
        res.writeHead(page ? 200 : 404, { "content-type": "text/html; charset=utf-8" });
        res.end(page ?? "<p>not found</p>");
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
      origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    after(
      () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    );

    const cases = [
      ["/loop.html", "a script that never yields", "busy past the"],
      ["/bomb.html", "a memory bomb", "more than"],
    ] as const;
    for (const [path, what, says] of cases) {
      it(`${what}: the run fails with limit_exceeded, nothing charged, /healthz keeps answering`, async () => {
        const owner = await ctx.owner(10);
        const created = await owner.post("/v1/datasets", dataset(`${origin}${path}`));
        expect(created.status, JSON.stringify(created.body)).to.equal(201);
        const running = runToEnd(owner, created.body.dataset.id, RUN_TIMEOUT_MS);
        const slowest = await slowestHealthzWhile(ctx.anonymous(), running);
        const run = await running;
        expect(run.status, JSON.stringify(run)).to.equal("failed");
        const coverage = run.checks.find((c: Body) => c.checkId === "coverage");
        expect(coverage.message).to.contain("limit_exceeded").and.contain(says);
        expect((await owner.get("/v1/usage")).body.balance).to.equal(10);
        expect(slowest, "slowest /healthz answer (ms)").to.be.below(HEALTHZ_BOUND_MS);
      });
    }
  });
};
