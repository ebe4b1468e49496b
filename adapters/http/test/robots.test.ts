import { expect } from "chai";
import { afterEach, describe, it } from "mocha";
import type { Handler } from "./loopback.js";
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
  sendHtml,
  startServer,
} from "./loopback.js";

const text =
  (body: string, status = 200): Handler =>
  (_q, r) =>
    r.writeHead(status, { "content-type": "text/plain" }).end(body);

describe("http fetcher: robots.txt (RFC 9309)", () => {
  let now = Date.parse("2026-11-21T00:00:00Z");
  const servers: Loopback[] = [];
  const harnesses: FetcherHarness[] = [];
  const site = async (table: Record<string, Handler>) => {
    const server = await startServer(
      routes({ "/page": sendHtml(html("<p>content</p>")), "/private/page": sendHtml(html("<p>secret</p>")), ...table }),
    );
    servers.push(server);
    return server;
  };
  const fetcher = () => {
    const harness = makeFetcher({ ...loopbackOnly, now: () => now });
    harnesses.push(harness);
    return harness;
  };
  const pageHits = (server: Loopback, path: string) => server.requests.filter((line) => line === `GET ${path}`).length;
  const robotsHits = (server: Loopback) => server.requests.filter((line) => line === "GET /robots.txt").length;

  afterEach(async () => {
    await Promise.all(harnesses.splice(0).map((harness) => harness.dispose()));
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });

  it("a disallowed URL is robots_disallowed and is never requested", async () => {
    const server = await site({ "/robots.txt": text("User-agent: *\nDisallow: /private/\n") });
    const failure = await readFailure(fetcher(), pageRequest(`${server.url}/private/page`));
    expect(failure.failure).to.deep.equal({ reason: "robots_disallowed", status: null, finalUrl: server.url });
    expect(pageHits(server, "/private/page")).to.equal(0);
  });

  it("our own group wins over *: Gleaner allowed where others are not, and the reverse", async () => {
    const server = await site({
      "/robots.txt": text("User-agent: *\nDisallow: /\n\nUser-agent: gleaner\nAllow: /page\nDisallow: /private/\n"),
    });
    const harness = fetcher();
    await readPage(harness, pageRequest(`${server.url}/page`));
    expect((await readFailure(harness, pageRequest(`${server.url}/private/page`))).failure.reason).to.equal(
      "robots_disallowed",
    );
  });

  it("4xx robots.txt allows everything", async () => {
    const server = await site({ "/robots.txt": text("gone", 410) });
    await readPage(fetcher(), pageRequest(`${server.url}/private/page`));
  });

  it("5xx robots.txt disallows everything and the page is not requested", async () => {
    const server = await site({ "/robots.txt": text("down", 503) });
    const failure = await readFailure(fetcher(), pageRequest(`${server.url}/page`));
    expect(failure.failure.reason).to.equal("robots_disallowed");
    expect(pageHits(server, "/page")).to.equal(0);
  });

  it("an unreachable robots.txt (connection reset) means the page is not requested either", async () => {
    const server = await site({ "/robots.txt": (request) => request.socket.destroy() });
    const failure = await readFailure(fetcher(), pageRequest(`${server.url}/page`));
    expect(failure.failure.reason).to.equal("connection_reset");
    expect(pageHits(server, "/page")).to.equal(0);
  });

  it("follows up to 5 redirects for robots.txt; after more it is unavailable (allow all, RFC 9309 2.3.1.2)", async () => {
    const chain = (length: number): Record<string, Handler> => {
      const table: Record<string, Handler> = { "/robots.txt": (_q, r) => r.writeHead(301, { location: "/r1" }).end() };
      for (let i = 1; i < length; i++) table[`/r${i}`] = (_q, r) => r.writeHead(302, { location: `/r${i + 1}` }).end();
      table[`/r${length}`] = text("User-agent: *\nDisallow: /private/\n");
      return table;
    };
    const five = await site(chain(5));
    expect((await readFailure(fetcher(), pageRequest(`${five.url}/private/page`))).failure.reason).to.equal(
      "robots_disallowed",
    );
    const six = await site(chain(6));
    await readPage(fetcher(), pageRequest(`${six.url}/private/page`));
    expect(six.requests).to.not.include("GET /r6");
  });

  it("caches robots.txt per origin and fetches it again after 24 h", async () => {
    const server = await site({ "/robots.txt": text("User-agent: *\nAllow: /\n") });
    const harness = fetcher();
    await readPage(harness, pageRequest(`${server.url}/page`));
    await readPage(harness, pageRequest(`${server.url}/page`));
    expect(robotsHits(server)).to.equal(1);
    now += 24 * 60 * 60 * 1000 - 1000;
    await readPage(harness, pageRequest(`${server.url}/page`));
    expect(robotsHits(server)).to.equal(1);
    now += 2000;
    await readPage(harness, pageRequest(`${server.url}/page`));
    expect(robotsHits(server)).to.equal(2);
  });

  it("ignoreRobots: true skips the check and reads the page", async () => {
    const server = await site({ "/robots.txt": text("User-agent: *\nDisallow: /\n") });
    const page = await readPage(fetcher(), pageRequest(`${server.url}/private/page`, { ignoreRobots: true }));
    expect(page.body).to.contain("secret");
    expect(robotsHits(server)).to.equal(0);
  });

  it("checks robots.txt of every redirect hop's origin", async () => {
    const target = await site({ "/robots.txt": text("User-agent: *\nDisallow: /private/\n") });
    const start = await site({
      "/robots.txt": text("", 404),
      "/go": (_q, r) => r.writeHead(302, { location: `${target.url}/private/page` }).end(),
    });
    const failure = await readFailure(fetcher(), pageRequest(`${start.url}/go`));
    expect(failure.failure).to.deep.equal({ reason: "robots_disallowed", status: null, finalUrl: target.url });
    expect(pageHits(target, "/private/page")).to.equal(0);
  });
});
