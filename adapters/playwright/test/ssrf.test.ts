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
 * The allow list lets 127.0.0.1 through (where the site runs); 127.0.0.2 is loopback too, reachable,
 * and not allowed: it plays the internal service a page must never reach, whatever asks for it.
 */
describe("@gleaner/playwright: the SSRF rule covers every request the page makes", function () {
  this.timeout(60_000);
  const run = chromiumAvailable();
  let site: Site;
  let victim: Site;
  const fetcher = makeFetcher();
  before(async function () {
    if (!run) this.skip();
    victim = await startSite(
      (_req, res) => html(res, "<p>internal secrets</p>", 200, { "access-control-allow-origin": "*" }),
      "127.0.0.2",
    );
    site = await startSite((req, res) => {
      const v = victim.url;
      if (req.url === "/robots.txt") return html(res, "", 404);
      if (req.url === "/page")
        return html(
          res,
          `<!doctype html><html><body><h1>Catalogue</h1>
          <img src="${v}/img.gif"><link rel="stylesheet" href="${v}/style.css"><iframe src="${v}/frame"></iframe>
          <script src="${v}/script.js"></script>
          <script>
            fetch("${v}/fetch").catch(function () {});
            var x = new XMLHttpRequest(); x.open("GET", "${v}/xhr"); x.send();
            fetch("/bounce").catch(function () {});
            try { new WebSocket("${v.replace("http", "ws")}/ws"); } catch (e) {}
            navigator.sendBeacon("${v}/beacon", "x");
            setTimeout(function () { var p = document.createElement("p"); p.className = "done"; p.textContent = "rendered"; document.body.appendChild(p); }, 300);
          </script></body></html>`,
        );
      if (req.url === "/bounce") return html(res, "", 302, { location: `${v}/redirected-subresource` });
      if (req.url === "/to-victim") return html(res, "", 302, { location: `${v}/redirected-document` });
      html(res, "<p>nothing</p>", 404);
    });
  });
  after(async () => {
    await fetcher.close();
    await site?.close();
    await victim?.close();
  });

  it("reads the page while none of its requests to a refused address reach it", async () => {
    const page = pageOf(await read(fetcher, browserRequest(`${site.url}/page`, { waitForSelector: "p.done" })));
    expect(page.body).to.contain("rendered");
    expect(site.requests).to.include("/bounce");
    expect(victim.requests).to.deep.equal([]);
  });

  it("a start URL on a refused address is unsafe_target, never requested", async () => {
    const refused = failureOf(await read(fetcher, browserRequest(`${victim.url}/start`)));
    expect(refused.failure).to.deep.equal({ reason: "unsafe_target", status: null, finalUrl: victim.url });
    expect(victim.requests).to.deep.equal([]);
  });

  it("a document redirected to a refused address is unsafe_target with that origin", async () => {
    const refused = failureOf(await read(fetcher, browserRequest(`${site.url}/to-victim`)));
    expect(refused.failure).to.deep.equal({ reason: "unsafe_target", status: null, finalUrl: victim.url });
    expect(victim.requests).to.deep.equal([]);
  });

  it("names that are private by definition and non-http schemes are refused", async () => {
    for (const url of ["http://localhost:9/", "file:///etc/passwd", "http://metadata.internal/"]) {
      expect(failureOf(await read(fetcher, browserRequest(url))).failure.reason, url).to.equal("unsafe_target");
    }
  });
});
