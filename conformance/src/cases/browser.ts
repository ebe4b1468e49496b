import { expect } from "chai";
import { allowMs, after, before, describe, it } from "../runner.js";
import dgram from "node:dgram";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type Body, browserListDataset } from "../bodies.js";
import { booksDataset, columnId, runToEnd } from "../books.js";
import type { Capability, SuiteContext } from "../context.js";
import { type BooksSite, startBooksSite } from "../sites/index.js";
import { createDataset } from "./rows.js";
import { browserHostileCases } from "./browser-hostile.js";

/** A browser run of the 50-page site takes tens of seconds on a loaded CI machine. */
const RUN_TIMEOUT_MS = 180_000;

const check = (run: Body, id: string) => run.checks.find((c: Body) => c.checkId === id);
const rendered = (render: "browser" | "static") => (body: Body) => void (body.source.render = render);

interface Recorder {
  readonly url: string;
  readonly paths: string[];
  readonly close: () => Promise<void>;
}

/** A server on `host` that records every request and answers `page` (or 404). */
const serve = async (host: string, page: (self: string) => string | null): Promise<Recorder> => {
  const paths: string[] = [];
  let self = "";
  const server: Server = createServer((req, res) => {
    paths.push(req.url ?? "");
    const body = req.url === "/list.html" ? page(self) : null;
    res.writeHead(body === null ? 404 : 200, { "content-type": "text/html; charset=utf-8" });
    res.end(body ?? "<p>not found</p>");
  });
  await new Promise<void>((resolve) => server.listen(0, host, () => resolve()));
  self = `http://${host}:${(server.address() as AddressInfo).port}`;
  return {
    url: self,
    paths,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};

/** `render: browser` on real Chromium (SPEC.md source.render). Registered only for sets that support it. */
export const browserCases = (ctx: SuiteContext): void => {
  describe("render: browser", function () {
    allowMs(this, RUN_TIMEOUT_MS + 30_000);
    let site: BooksSite;
    before(async () => {
      site = await startBooksSite({ render: "script" });
    });
    after(() => site.close());

    it("reads the script-rendered books site: the same 1000 rows as the static site, 50 credits", async () => {
      site.reset();
      const owner = await ctx.owner(120);
      const dataset = await createDataset(owner, booksDataset(site, "next-link", rendered("browser")));
      const run = await runToEnd(owner, dataset.id, RUN_TIMEOUT_MS);
      expect(run.status, JSON.stringify(run)).to.equal("succeeded");
      expect(run.rowDeltas).to.deep.equal({ new: 1000, changed: 0, gone: 0 });
      expect(run.checks.map((c: Body) => [c.checkId, c.passed])).to.deep.equal([
        ["coverage", true],
        ["identity", true],
        ["extraction", true],
        ["minimum-items", true],
        [`present:${columnId(dataset, "title")}`, true],
        [`present:${columnId(dataset, "price")}`, true],
      ]);
      expect((await owner.get("/v1/usage")).body.balance).to.equal(70);
    });

    it("the same site read with render: static finds 0 items and fails its checks, nothing charged", async () => {
      site.reset();
      const owner = await ctx.owner(120);
      const dataset = await createDataset(owner, booksDataset(site, "next-link", rendered("static")));
      const run = await runToEnd(owner, dataset.id, RUN_TIMEOUT_MS);
      expect(run.status).to.equal("failed");
      expect(check(run, "minimum-items").passed).to.equal(false);
      expect(check(run, "minimum-items").message).to.match(/^0 records found/);
      expect(run.rowDeltas).to.deep.equal({ new: 0, changed: 0, gone: 0 });
      expect((await owner.get("/v1/usage")).body.balance).to.equal(120);
    });

    it("previews and suggestions read a script-rendered page in Chromium with render: browser, and find nothing without it", async () => {
      site.reset();
      const owner = await ctx.owner(1);
      const body = booksDataset(site, "next-link", rendered("browser"));
      const preview = await owner.post("/v1/sources/preview", { source: body.source, pages: 1 });
      expect(preview.status, JSON.stringify(preview.body)).to.equal(200);
      expect(preview.body.preview.pages[0]).to.deep.include({ status: "read", records: 20 });
      const stillEmpty = await owner.post("/v1/sources/preview", {
        source: booksDataset(site, "next-link", rendered("static")).source,
        pages: 1,
      });
      expect(stillEmpty.body.preview.warnings[0]).to.deep.include({ code: "no_items" });
      const suggested = await owner.post("/v1/sources/suggest", { url: site.pageUrl(1), render: "browser" });
      expect(suggested.status).to.equal(200);
      const [best] = suggested.body.suggestions;
      expect(best.source).to.deep.include({ render: "browser", itemSelector: "article.product_pod" });
      expect(best.preview.records[0].values).to.deep.include({ price: site.books[0]!.price_gbp });
    });

    it("each preview reads in a browser session of its own: a cookie one owner's preview got never reaches another's", async () => {
      // The page sets a cookie named by the request and lists the cookies it was sent.
      const server = createServer((req, res) => {
        const who = new URL(req.url ?? "/", "http://x").searchParams.get("who") ?? "none";
        const sent = req.headers.cookie ?? "no cookie";
        res.writeHead(req.url?.startsWith("/list.html") ? 200 : 404, {
          "content-type": "text/html; charset=utf-8",
          "set-cookie": `who=${who}; Path=/`,
        });
        res.end(
          `<html><body><ul><li class="item"><b>${sent}</b></li><li class="item"><b>${who}</b></li></ul></body></html>`,
        );
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/list.html`;
      try {
        const seen = async (who: string) => {
          const body = browserListDataset("cookies", `${url}?who=${who}`);
          const answer = await (await ctx.owner(1)).post("/v1/sources/preview", {
            source: body.source,
            columns: body.columns,
            pages: 1,
          });
          expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
          return answer.body.preview.records.map((r: Body) => r.values.name);
        };
        expect(await seen("first")).to.deep.equal(["no cookie", "first"]);
        expect(await seen("second")).to.deep.equal(["no cookie", "second"]);
      } finally {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    });

    it("a site that refuses every browser read makes the run blocked, free of charge", async () => {
      site.reset();
      const owner = await ctx.owner(120);
      const dataset = await createDataset(owner, booksDataset(site, "next-link", rendered("browser")));
      for (const mode of ["challenge", "forbidden", "login_redirect", "empty_body"] as const) {
        site.blockPage(1, mode);
        const run = await runToEnd(owner, dataset.id, RUN_TIMEOUT_MS);
        site.unblockPage(1);
        expect(run.status, mode).to.equal("blocked");
        expect(run.error).to.contain(mode);
      }
      expect((await owner.get("/v1/usage")).body.balance).to.equal(120);
    });

    it("a blocked page in a browser run fails coverage, naming page and reason", async () => {
      site.reset();
      const owner = await ctx.owner(120);
      const dataset = await createDataset(
        owner,
        booksDataset(site, "url-pattern", (body) => {
          rendered("browser")(body);
          body.source.maxPages = 4;
        }),
      );
      site.blockPage(3, "forbidden");
      const run = await runToEnd(owner, dataset.id, RUN_TIMEOUT_MS);
      site.unblockPage(3);
      expect(run.status).to.equal("failed");
      expect(check(run, "coverage").message).to.contain("page-3.html").and.contain("forbidden");
      expect((await owner.get("/v1/usage")).body.balance).to.equal(120);
    });

    describe("the SSRF rule in the browser", () => {
      // 127.0.0.2 is loopback but outside the suite's allow list (127.0.0.1/32): an internal service.
      let victim: Recorder;
      let page: Recorder;
      // A STUN/TURN server on the refused address: WebRTC must not send it a single datagram.
      let stun: dgram.Socket;
      let datagrams = 0;
      before(async () => {
        victim = await serve("127.0.0.2", () => "<ol><li class='item'><b>secret</b></li></ol>");
        stun = dgram.createSocket("udp4").on("message", () => void datagrams++);
        await new Promise<void>((resolve) => stun.bind(0, "127.0.0.2", () => resolve()));
        const ice = `127.0.0.2:${stun.address().port}`;
        page = await serve(
          "127.0.0.1",
          () => `<!doctype html><html><body><ol id="list"></ol><img src="${victim.url}/pixel.gif">
          <script>
            fetch("${victim.url}/xhr").catch(function () {});
            try {
              var pc = new RTCPeerConnection({ iceServers: [{ urls: ["stun:${ice}", "turn:${ice}"], username: "u", credential: "p" }] });
              pc.createDataChannel("d");
              pc.createOffer().then(function (offer) { return pc.setLocalDescription(offer); }).catch(function () {});
            } catch (e) {}
            ["a", "b"].forEach(function (name) {
              var li = document.createElement("li"); li.className = "item";
              var b = document.createElement("b"); b.textContent = name; li.appendChild(b);
              document.getElementById("list").appendChild(li);
            });
          </script></body></html>`,
        );
      });
      after(async () => {
        await victim.close();
        await page.close();
        await new Promise<void>((resolve) => stun.close(() => resolve()));
      });

      const dataset = (url: string): Body => browserListDataset("SSRF", url);

      it("a page's requests to a refused address never reach it, WebRTC's neither; the page itself is read", async () => {
        const owner = await ctx.owner(10);
        const created = await createDataset(owner, dataset(`${page.url}/list.html`));
        const run = await runToEnd(owner, created.id, RUN_TIMEOUT_MS);
        expect(run.status, JSON.stringify(run)).to.equal("succeeded");
        expect(run.rowDeltas).to.deep.equal({ new: 2, changed: 0, gone: 0 });
        expect(victim.paths).to.deep.equal([]);
        expect(datagrams, "WebRTC datagrams to the refused address").to.equal(0);
      });

      // The rule refuses a literal private start address when the dataset is created (AllowedTargets),
      // before any run can read it; addresses a page reaches at run time are refused by the fetcher above.
      it("a start URL on a refused address is refused at creation (422 naming /source/url), never requested", async () => {
        const owner = await ctx.owner(10);
        const refused = await owner.post("/v1/datasets", dataset(`${victim.url}/list.html`));
        expect(refused.status, JSON.stringify(refused.body)).to.equal(422);
        expect(refused.body.error.details.map((d: Body) => d.path)).to.include("/source/url");
        expect(victim.paths).to.deep.equal([]);
      });
    });

    browserHostileCases(ctx);
  });
};

export const browserCapability: Capability = {
  name: "browser",
  requires: [
    {
      flag: "browser",
      byDefault: false,
      why: "render: browser cases need Chromium (supports.browser, GLEANER_BROWSER_PATH)",
    },
  ],
  register: browserCases,
};
