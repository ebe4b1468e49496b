import { expect } from "chai";
import { after, before, describe, it } from "mocha";
import {
  browserRequest,
  chromiumAvailable,
  failureOf,
  html,
  makeFetcher,
  read,
  type Site,
  startSite,
} from "./harness.js";
import { startTcpRecorder, startUdpRecorder, type TcpRecorder, type UdpRecorder } from "./listeners.js";
import { kindsPage, REDIRECT_STATUSES, webRtcPage } from "./ssrf-kinds.js";

/** Kinds that Chromium sends from a page read as Gleaner configures it, proven on an allowed target. */
const EXERCISED = [
  "css",
  "import",
  "font",
  "script",
  "iframe",
  "srcdoc-css",
  "srcdoc-fetch",
  "meta-refresh",
  "refresh-header",
  "object",
  "fetch",
  "xhr",
  "beacon",
  "eventsource",
  "worker-fetch",
  "form-post",
  "window-open",
  ...REDIRECT_STATUSES.flatMap((status) => [`frame-redirect-${status}`, `fetch-redirect-${status}`]),
];

/**
 * The allow list lets 127.0.0.1/32 through (where the site runs). 127.0.0.2, 127.0.0.3 and [::1] are
 * loopback, reachable, and refused: TCP and UDP listeners there play internal services and count
 * every connection and datagram a read sends them. The count must be 0.
 */
describe("@gleaner/playwright: SSRF battery — every kind of request a page can make, and WebRTC", function () {
  this.timeout(120_000);
  const run = chromiumAvailable();
  let site: Site;
  let control: TcpRecorder;
  let victims: TcpRecorder[] = [];
  let datagramSinks: UdpRecorder[] = [];
  let iceUrls: string[] = [];
  // A longer quiet period, so late requests (workers, popups, redirects) are made before the read ends.
  const fetcher = makeFetcher({ quietMs: 1_500 });
  const tcpHits = () => victims.map((v) => `${v.origin}: ${v.connections()} connections ${JSON.stringify(v.paths)}`);

  before(async function () {
    if (!run) this.skip();
    control = await startTcpRecorder("127.0.0.1");
    victims = await Promise.all(["127.0.0.2", "127.0.0.3", "::1"].map(startTcpRecorder));
    datagramSinks = await Promise.all(["127.0.0.1", "127.0.0.3", "::1"].map(startUdpRecorder));
    iceUrls = [
      ...datagramSinks.flatMap((s) => [`stun:${s.host}:${s.port}`, `turn:${s.host}:${s.port}`]),
      `stun:localhost:${datagramSinks[0]?.port}`,
      ...victims.map((v) => `turn:${v.host}:${v.port}?transport=tcp`),
    ];
    site = await startSite((req, res) => {
      const url = new URL(req.url ?? "/", "http://site");
      const to = url.searchParams.get("to") ?? "";
      if (url.pathname === "/robots.txt") return html(res, "", 404);
      if (url.pathname === "/kinds") return html(res, kindsPage(url.searchParams.get("target") ?? ""));
      if (url.pathname === "/webrtc") return html(res, webRtcPage(iceUrls));
      const bounce = /^\/bounce\/(\d{3})$/.exec(url.pathname);
      if (bounce) return html(res, "", Number(bounce[1]), { location: to });
      if (url.pathname === "/refresh") return html(res, "<p>refreshing</p>", 200, { refresh: `0; url=${to}` });
      html(res, "<h1>Landing</h1>");
    });
  });
  after(async () => {
    await fetcher.close();
    await Promise.all([site, control, ...victims, ...datagramSinks].map((closable) => closable?.close()));
  });

  it("control: on an allowed address the same page does send every exercised kind", async () => {
    await read(fetcher, browserRequest(`${site.url}/kinds?target=${encodeURIComponent(control.origin)}`));
    const seen = new Set(control.paths.map((path) => path.replace(/^\/k\//, "").split("?")[0]));
    expect(
      [...EXERCISED].filter((kind) => !seen.has(kind)),
      "kinds the page did not send",
    ).to.deep.equal([]);
    // Images are off (launch flag), WebSockets are closed by the context, a cross-origin worker script
    // is refused by the browser itself: those are aimed at the victims too, but cannot be proven here.
    console.log(`      kinds not sent even to an allowed target: ${notSent(seen).join(", ")}`);
  });

  for (const host of ["127.0.0.2", "127.0.0.3", "[::1]"]) {
    it(`${host}: every kind aimed at it, 0 connections (in one run's session)`, async () => {
      const victim = victims.find((v) => v.host === host) as TcpRecorder;
      // One run id for the three reads: the second and third reuse the run's session and guard.
      const request = browserRequest(`${site.url}/kinds?target=${encodeURIComponent(victim.origin)}`, {
        runId: "battery",
      });
      await read(fetcher, request);
      expect(victim.connections(), tcpHits().join("\n")).to.equal(0);
    });
  }

  it("main documents redirected by every 30x to each refused address: unsafe_target, 0 connections", async () => {
    for (const status of REDIRECT_STATUSES) {
      for (const victim of victims) {
        const start = `${site.url}/bounce/${status}?to=${encodeURIComponent(`${victim.origin}/k/document`)}`;
        const refused = failureOf(await read(fetcher, browserRequest(start)));
        expect(refused.failure, `${status} to ${victim.origin}`).to.deep.equal({
          reason: "unsafe_target",
          status: null,
          finalUrl: victim.origin,
        });
      }
    }
    expect(
      victims.map((v) => v.connections()),
      tcpHits().join("\n"),
    ).to.deep.equal([0, 0, 0]);
  });

  it("robots.txt redirected to each refused address: the page is not read there, 0 connections", async () => {
    for (const victim of victims) {
      const robotsSite = await startSite((req, res) =>
        req.url === "/robots.txt"
          ? html(res, "", 301, { location: `${victim.origin}/robots.txt` })
          : html(res, "<h1>Page</h1>"),
      );
      try {
        const refused = failureOf(await read(fetcher, browserRequest(`${robotsSite.url}/page`)));
        expect(refused.failure.reason).to.equal("robots_disallowed");
        expect(refused.message).to.contain("robots.txt redirects to an unsafe target");
      } finally {
        await robotsSite.close();
      }
    }
    expect(
      victims.map((v) => v.connections()),
      tcpHits().join("\n"),
    ).to.deep.equal([0, 0, 0]);
  });

  it("WebRTC to STUN/TURN servers on refused addresses (UDP and TCP, by name too): 0 datagrams, 0 connections", async () => {
    await read(fetcher, browserRequest(`${site.url}/webrtc`));
    // ICE keeps trying for seconds after the read; give stray datagrams time to arrive.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(
      datagramSinks.map((s) => `${s.host}:${s.port} ${s.datagrams()}`),
      "datagrams per listener",
    ).to.deep.equal(datagramSinks.map((s) => `${s.host}:${s.port} 0`));
    expect(
      victims.map((v) => v.connections()),
      tcpHits().join("\n"),
    ).to.deep.equal([0, 0, 0]);
  });
});

const ALL_KINDS = [
  ...EXERCISED,
  "img",
  "input-image",
  "new-image",
  "preload-image",
  "poster",
  "video",
  "audio",
  "embed",
  "prefetch",
  "preload",
  "modulepreload",
  "speculation-prefetch",
  "speculation-prerender",
  "websocket",
  "worker-ws",
  "worker-script",
  "dynamic-import",
  "ping",
];

const notSent = (seen: ReadonlySet<string>): string[] => ALL_KINDS.filter((kind) => !seen.has(kind));
