import { expect } from "chai";
import { after, before, describe, it } from "mocha";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createProxy, type ProxyServer } from "proxy";
import {
  type FetcherHarness,
  html,
  type Loopback,
  loopbackOnly,
  makeFetcher,
  pageRequest,
  readFailure,
  readPage,
  routes,
  startServer,
} from "./loopback.js";

/**
 * Proxy modes against a real forward proxy (the `proxy` package) on loopback. The proxy connects
 * out from 127.0.0.2, so the target can tell a proxied request from a direct one and block the direct.
 */
describe("http fetcher: proxies (GLEANER_PROXY_URLS, proxy never/always/auto)", () => {
  let target: Loopback;
  let proxy: ProxyServer;
  let proxyUrl: string;
  const proxied: string[] = [];
  let harnessWithProxy: FetcherHarness;
  let harnessWithout: FetcherHarness;

  before(async () => {
    target = await startServer(
      routes({
        "/robots.txt": (_q, r) => r.writeHead(404).end(),
        "/page": (request, response) => {
          const via = request.socket.remoteAddress === "127.0.0.2" ? "proxy" : "direct";
          response.writeHead(200, { "content-type": "text/html" }).end(html(`<p>read ${via}</p>`));
        },
        "/blocks-direct": (request, response) => {
          if (request.socket.remoteAddress !== "127.0.0.2")
            return response.writeHead(403, { "content-type": "text/html" }).end(html("<p>Denied</p>"));
          response.writeHead(200, { "content-type": "text/html" }).end(html("<p>read through the proxy</p>"));
        },
        "/not-found": (_q, r) => r.writeHead(404, { "content-type": "text/html" }).end(html("<p>missing</p>")),
      }),
    );
    proxy = createProxy(createServer());
    proxy.localAddress = "127.0.0.2";
    proxy.authenticate = (request) =>
      request.headers["proxy-authorization"] === `Basic ${Buffer.from("gleaner:s3cr3t-pw").toString("base64")}`;
    proxy.on("request", (request) => proxied.push(request.url ?? ""));
    proxy.on("connect", (request) => proxied.push(`CONNECT ${request.url}`));
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    proxyUrl = `http://gleaner:s3cr3t-pw@127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    harnessWithProxy = makeFetcher({
      ...loopbackOnly,
      proxyUrls: proxyUrl,
      lookup: async () => [{ address: "10.9.9.9", family: 4 }],
    });
    harnessWithout = makeFetcher(loopbackOnly);
  });
  after(async () => {
    await harnessWithProxy.dispose();
    await harnessWithout.dispose();
    await target.close();
    proxy.closeAllConnections();
    await new Promise((resolve) => proxy.close(resolve));
  });

  it("always: reads through the proxy, with its credentials", async () => {
    const before = proxied.length;
    const page = await readPage(harnessWithProxy, pageRequest(`${target.url}/page`, { proxy: "always" }));
    expect(page.body).to.contain("read proxy");
    expect(proxied.length).to.be.greaterThan(before);
  });

  it("never: reads directly even with proxies configured", async () => {
    const before = proxied.length;
    const page = await readPage(harnessWithProxy, pageRequest(`${target.url}/page`, { proxy: "never" }));
    expect(page.body).to.contain("read direct");
    expect(proxied.length).to.equal(before);
  });

  it("auto: direct first; a blocked (403) read is tried again through the proxy", async () => {
    const page = await readPage(harnessWithProxy, pageRequest(`${target.url}/blocks-direct`, { proxy: "auto" }));
    expect(page.body).to.contain("read through the proxy");
    expect(page.attempts).to.equal(2);
  });

  it("auto: a failure that is not a block (404) is not retried through the proxy", async () => {
    const before = proxied.length;
    const failure = await readFailure(harnessWithProxy, pageRequest(`${target.url}/not-found`, { proxy: "auto" }));
    expect(failure.failure.reason).to.equal("http_error");
    expect(proxied.length).to.equal(before);
  });

  it("always without GLEANER_PROXY_URLS fails clearly, naming the setting, and sends nothing", async () => {
    const before = target.requests.length;
    const failure = await readFailure(harnessWithout, pageRequest(`${target.url}/page`, { proxy: "always" }));
    expect(failure.message).to.contain("GLEANER_PROXY_URLS");
    expect(failure.failure).to.deep.equal({ reason: "network", status: null, finalUrl: target.url });
    expect(target.requests.length).to.equal(before);
  });

  it("the target must still be public through a proxy: a private literal or a name resolving privately never reaches the proxy", async () => {
    const before = proxied.length;
    for (const url of ["http://10.0.0.1/", "http://169.254.169.254/latest/", "http://internal.example/"]) {
      const failure = await readFailure(harnessWithProxy, pageRequest(url, { proxy: "always" }));
      expect(failure.failure.reason, url).to.equal("unsafe_target");
    }
    expect(proxied.length).to.equal(before);
  });

  it("proxy credentials never appear in a failure message", async () => {
    const wrong = makeFetcher({ ...loopbackOnly, proxyUrls: [proxyUrl.replace("s3cr3t-pw", "wr0ng-pw")] });
    try {
      const failure = await readFailure(wrong, pageRequest(`${target.url}/page`, { proxy: "always" }));
      expect(failure.failure.reason).to.equal("network");
      expect(failure.message).to.contain("407");
      expect(JSON.stringify(failure)).to.not.contain("wr0ng-pw");
    } finally {
      await wrong.dispose();
    }
  });

  it("a proxy URL that is not http(s) is refused when the Layer is built, naming the setting", async () => {
    const broken = makeFetcher({ proxyUrls: "socks5://user:pw@127.0.0.1:1080" });
    const error = await broken.read(pageRequest("http://127.0.0.1/")).then(
      () => null,
      (e: unknown) => String(e),
    );
    await broken.dispose().catch(() => {});
    expect(error).to.contain("GLEANER_PROXY_URLS");
    expect(error).to.not.contain(":pw@");
  });
});
