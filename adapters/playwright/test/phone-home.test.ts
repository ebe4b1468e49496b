import { lookup as systemLookup } from "node:dns/promises";
import { expect } from "chai";
import { after, before, describe, it } from "mocha";
import { makePlaywrightFetcher } from "../src/index.js";
import { resolveConfig } from "../src/config.js";
import { browserPath, browserRequest, chromiumAvailable, html, pageOf, read, type Site, startSite } from "./harness.js";

// A render asks the network for the page and what the page asks for, nothing of Chromium's own:
// a page with a form once made Chromium look up content-autofill.googleapis.com through the guard
// proxy, which resolved it (and, with working DNS, would have connected). Issue 33.

const formPage = `<!doctype html><html><head><title>Sign up</title></head><body>
<form action="/signup" method="post" autocomplete="on">
  <label>Name <input name="name" autocomplete="name"></label>
  <label>Email <input name="email" type="email" autocomplete="email"></label>
  <label>Street <input name="street" autocomplete="street-address"></label>
  <label>Card <input name="cc" autocomplete="cc-number"></label>
  <button>Go</button>
</form><ul><li class="item">one</li></ul></body></html>`;

describe("@gleaner/playwright: a render asks nothing of its own", function () {
  this.timeout(60_000);
  const run = chromiumAvailable();
  let site: Site;
  const asked: string[] = [];
  const fetcher = makePlaywrightFetcher({
    ...resolveConfig({
      browserPath,
      allowPrivateTargets: "127.0.0.1/32",
      readTimeoutMs: 15_000,
      quietMs: 1_500,
      retry: { maxAttempts: 1 },
    }),
    lookup: ((hostname: string, options: never) => {
      asked.push(hostname);
      return systemLookup(hostname, options);
    }) as never,
  });
  before(async function () {
    if (!run) this.skip();
    site = await startSite((_req, res) => html(res, formPage));
  });
  after(async () => {
    await fetcher.close();
    await site?.close();
  });

  it("renders a page with a form without looking up any other host (autofill, safe browsing, updates)", async () => {
    const page = pageOf(await read(fetcher, browserRequest(`${site.url}/signup`, { ignoreRobots: true })));
    expect(page.body).to.contain('class="item"');
    // Give Chromium's background services time to ask, had they been asked to.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(asked.filter((name) => name !== "127.0.0.1")).to.deep.equal([]);
  });
});
