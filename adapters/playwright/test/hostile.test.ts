import { expect } from "chai";
import { after, before, describe, it } from "mocha";
import { request as httpGet } from "node:http";
import {
  browserRequest,
  chromiumAvailable,
  failureOf,
  html,
  makeFetcher,
  pageOf,
  read,
  type Site,
  startSite,
} from "./harness.js";

const RENDER_BUDGET_MS = 4_000;
const MEMORY_CAP_BYTES = 384 * 1024 * 1024;
/** How late a loopback health check may answer while the browser works (it answers in ~1 ms when idle). */
const RESPONSIVE_BOUND_MS = 2_000;

const hostile: Record<string, string> = {
  // Blocks the parser: `load` never fires.
  "/loop": "<p>loop</p><script>while (true) {}</script>",
  // Loads, then never yields: reading the DOM would wait forever.
  "/late-loop": "<p>late loop</p><script>setTimeout(function () { while (true) {} }, 50);</script>",
  // Typed arrays live outside the JavaScript heap: only the resident-memory cap stops them.
  "/buffer-bomb": `<p>buffers</p><script>var kept = [];
    for (;;) kept.push(new Uint8Array(32 * 1024 * 1024).fill(7));</script>`,
  // Plain objects: the JavaScript heap limit (half the cap) or the cap itself stops them.
  "/heap-bomb": `<p>heap</p><script>var kept = [];
    for (var i = 0; ; i++) kept.push({ i: i, s: "x" + i });</script>`,
};

/** Asks a loopback server every 100 ms while `work` runs; resolves to the slowest answer's time. */
const slowestAnswerWhile = async (url: string, work: Promise<unknown>): Promise<number> => {
  let slowest = 0;
  let running = true;
  void work.finally(() => {
    running = false;
  });
  while (running) {
    const started = performance.now();
    await new Promise<void>((resolve, reject) =>
      httpGet(`${url}/healthz`, (res) => res.resume().on("end", resolve))
        .on("error", reject)
        .end(),
    );
    slowest = Math.max(slowest, performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return slowest;
};

describe("@gleaner/playwright: hostile pages end with limit_exceeded, the process stays responsive", function () {
  this.timeout(90_000);
  const run = chromiumAvailable();
  let site: Site;
  let health: Site;
  // Three attempts allowed: a limit must not be retried (each attempt would cost the whole budget).
  const fetcher = makeFetcher({
    readTimeoutMs: RENDER_BUDGET_MS,
    maxRendererMemoryBytes: MEMORY_CAP_BYTES,
    retry: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 10 },
  });
  before(async function () {
    if (!run) this.skip();
    health = await startSite((_req, res) => html(res, "ok"));
    site = await startSite((req, res) => {
      if (req.url === "/robots.txt") return html(res, "", 404);
      const page = hostile[req.url ?? ""];
      html(res, page ?? "<h1>Welcome</h1><p>an ordinary page</p>", page || req.url === "/" ? 200 : 404);
    });
  });
  after(async () => {
    await fetcher.close();
    await site?.close();
    await health?.close();
  });

  for (const path of ["/loop", "/late-loop"]) {
    it(`${path}: a script that never yields ends the read at the render budget, once`, async () => {
      const reading = read(fetcher, browserRequest(`${site.url}${path}`));
      const slowest = await slowestAnswerWhile(health.url, reading);
      const failed = failureOf(await reading);
      expect(failed.failure).to.deep.equal({ reason: "limit_exceeded", status: null, finalUrl: site.url });
      expect(failed.message).to.equal("the page's scripts kept the browser busy past the 4 s render budget");
      expect(failed.attempts).to.equal(1);
      expect(slowest, "slowest health answer (ms)").to.be.below(RESPONSIVE_BOUND_MS);
    });
  }

  it("/buffer-bomb: memory outside the JavaScript heap is capped, the renderer stopped", async () => {
    const reading = read(fetcher, browserRequest(`${site.url}/buffer-bomb`));
    const slowest = await slowestAnswerWhile(health.url, reading);
    const failed = failureOf(await reading);
    expect(failed.failure).to.deep.equal({ reason: "limit_exceeded", status: null, finalUrl: site.url });
    expect(failed.message).to.equal(
      "the page used more than 384 MB of memory in the browser; its renderer was stopped",
    );
    expect(failed.attempts).to.equal(1);
    expect(fetcher.keeper.memoryKills()).to.be.at.least(1);
    expect(slowest, "slowest health answer (ms)").to.be.below(RESPONSIVE_BOUND_MS);
  });

  it("/heap-bomb: a JavaScript heap that grows without bound ends as limit_exceeded", async () => {
    const failed = failureOf(await read(fetcher, browserRequest(`${site.url}/heap-bomb`)));
    expect(failed.failure).to.deep.equal({ reason: "limit_exceeded", status: null, finalUrl: site.url });
    expect(failed.attempts).to.equal(1);
  });

  it("the same browser reads an ordinary page afterwards", async () => {
    const page = pageOf(await read(fetcher, browserRequest(`${site.url}/`)));
    expect(page.body).to.contain("Welcome");
  });
});
