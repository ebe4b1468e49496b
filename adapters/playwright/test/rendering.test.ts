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

const scriptPage = `<!doctype html><html><head><title>Shop</title></head><body><h1>Shop</h1><ol id="list"></ol>
<script id="data" type="application/json">["Apple","Pear","Plum"]</script>
<script>
  setTimeout(function () {
    var list = document.getElementById("list");
    JSON.parse(document.getElementById("data").textContent).forEach(function (name) {
      var li = document.createElement("li"); li.className = "item"; li.textContent = name; list.appendChild(li);
    });
  }, 50);
</script></body></html>`;

describe("@gleaner/playwright: reading pages in Chromium", function () {
  this.timeout(60_000);
  const run = chromiumAvailable();
  let site: Site;
  const fetcher = makeFetcher();
  before(async function () {
    if (!run) this.skip();
    site = await startSite((req, res) => {
      if (req.url === "/robots.txt")
        return html(res, "User-agent: *\nDisallow: /private\n", 200, { "content-type": "text/plain" });
      if (req.url === "/shop") return html(res, scriptPage);
      if (req.url === "/moved") return html(res, "", 302, { location: "/shop" });
      if (req.url === "/private") return html(res, "<p>secret</p>");
      if (req.url === "/data.json") return html(res, "{}", 200, { "content-type": "application/json" });
      html(res, "<p>not found</p>", 404);
    });
  });
  after(async () => {
    await fetcher.close();
    await site?.close();
  });

  it("does not start Chromium until the first browser read", async () => {
    expect(await fetcher.keeper.running()).to.equal(false);
  });

  it("returns the page as the script rendered it, waiting for the item selector", async () => {
    const page = pageOf(await read(fetcher, browserRequest(`${site.url}/shop`, { waitForSelector: "li.item" })));
    expect(page.status).to.equal(200);
    expect(page.finalUrl).to.equal(`${site.url}/shop`);
    expect(page.body).to.contain('<li class="item">Apple</li>').and.contain("Plum");
    expect(page.attempts).to.equal(1);
    expect(await fetcher.keeper.running()).to.equal(true);
  });

  it("waits for the network to be quiet when the selector never appears, then reads what is there", async () => {
    const page = pageOf(await read(fetcher, browserRequest(`${site.url}/shop`, { waitForSelector: "li.never" })));
    expect(page.body).to.contain("Pear");
  });

  it("follows redirects and reports the final URL", async () => {
    const page = pageOf(await read(fetcher, browserRequest(`${site.url}/moved`, { waitForSelector: "li.item" })));
    expect(page.finalUrl).to.equal(`${site.url}/shop`);
  });

  it("honours robots.txt unless the source ignores it", async () => {
    const refused = failureOf(await read(fetcher, browserRequest(`${site.url}/private`)));
    expect(refused.failure).to.deep.equal({ reason: "robots_disallowed", status: null, finalUrl: site.url });
    expect(site.requests).not.to.include("/private");
    pageOf(await read(fetcher, browserRequest(`${site.url}/private`, { ignoreRobots: true })));
  });

  it("refuses non-HTML documents and static reads", async () => {
    const json = failureOf(await read(fetcher, browserRequest(`${site.url}/data.json`)));
    expect(json.failure.reason).to.equal("invalid_content");
    const wrong = failureOf(await read(fetcher, { ...browserRequest(`${site.url}/shop`), render: "static" }));
    expect(wrong.failure.reason).to.equal("unknown");
    expect(wrong.message).to.contain("@gleaner/http");
  });
});
