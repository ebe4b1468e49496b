import { expect } from "chai";
import { after, before, describe, it } from "mocha";
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

/**
 * The reads of one run share a context and guard proxy (cookies within the run, never across runs);
 * every request of a reused session still goes through the guard.
 */
describe("@gleaner/playwright: one browser session per run", function () {
  this.timeout(60_000);
  const run = chromiumAvailable();
  let site: Site;
  let victim: Site;
  const fetcher = makeFetcher({ readTimeoutMs: 4_000 });
  before(async function () {
    if (!run) this.skip();
    victim = await startSite((_req, res) => html(res, "<p>internal</p>"), "127.0.0.2");
    site = await startSite((req, res) => {
      if (req.url === "/robots.txt") return html(res, "", 404);
      if (req.url === "/visit") return html(res, "<p>visited</p>", 200, { "set-cookie": "session=abc; Path=/" });
      if (req.url === "/whoami") return html(res, `<p id="who">cookie: ${req.headers.cookie ?? "none"}</p>`);
      if (req.url === "/leaky")
        return html(res, `<p>leaky</p><script>fetch("${victim.url}/from-reused").catch(function () {});</script>`);
      if (req.url === "/ticking")
        return html(
          res,
          `<p>ticking</p><script>setInterval(function () { fetch("/tick").catch(function () {}); }, 100);</script>`,
        );
      if (req.url === "/tick") return html(res, "tick");
      if (req.url === "/loop") return html(res, "<p>loop</p><script>while (true) {}</script>");
      html(res, "<p>nothing</p>", 404);
    });
  });
  after(async () => {
    await fetcher.close();
    await site?.close();
    await victim?.close();
  });

  it("a run's second read carries the cookie its first read got; another run's does not", async () => {
    pageOf(await read(fetcher, browserRequest(`${site.url}/visit`, { runId: "run-a" })));
    const same = pageOf(await read(fetcher, browserRequest(`${site.url}/whoami`, { runId: "run-a" })));
    expect(same.body).to.contain("cookie: session=abc");
    const other = pageOf(await read(fetcher, browserRequest(`${site.url}/whoami`, { runId: "run-b" })));
    expect(other.body).to.contain("cookie: none");
    const none = pageOf(await read(fetcher, browserRequest(`${site.url}/whoami`)));
    expect(none.body).to.contain("cookie: none");
  });

  it("a reused session still sends every request through the guard", async () => {
    for (let i = 0; i < 3; i++) {
      pageOf(await read(fetcher, browserRequest(`${site.url}/leaky`, { runId: "run-c" })));
    }
    expect(victim.requests).to.deep.equal([]);
  });

  it("between a run's reads its page runs nothing: the last document's scripts have stopped", async () => {
    pageOf(await read(fetcher, browserRequest(`${site.url}/ticking`, { runId: "run-e" })));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const ticks = site.requests.filter((path) => path === "/tick").length;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(site.requests.filter((path) => path === "/tick").length).to.equal(ticks);
  });

  it("a read that hit a limit does not hand its session on: the run's next read works", async () => {
    pageOf(await read(fetcher, browserRequest(`${site.url}/visit`, { runId: "run-d" })));
    const busy = failureOf(await read(fetcher, browserRequest(`${site.url}/loop`, { runId: "run-d" })));
    expect(busy.failure.reason).to.equal("limit_exceeded");
    const next = pageOf(await read(fetcher, browserRequest(`${site.url}/whoami`, { runId: "run-d" })));
    // A new session: the page reads, and the loop's context (with its cookie) is gone.
    expect(next.body).to.contain("cookie: none");
  });
});
