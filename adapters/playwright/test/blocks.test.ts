import { expect } from "chai";
import { execFileSync } from "node:child_process";
import { after, before, describe, it } from "mocha";
import { CRASH_MESSAGE } from "../src/page-read.js";
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

const challenge = `<!DOCTYPE html><html><head><title>Just a moment...</title></head><body>
<h2 id="challenge-running">Checking if the site connection is secure</h2>
<script>window._cf_chl_opt={cType:'managed'};</script></body></html>`;
const loginForm = `<!doctype html><html><body><form method="post"><input name="user"><input type="password" name="pw"><button>Sign in</button></form></body></html>`;

/** The Chromium processes this test process started (the browser's own, not its helpers). */
const browserPids = (): number[] =>
  execFileSync("ps", ["-o", "pid=,comm=", "--ppid", String(process.pid)], { encoding: "utf8" })
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .filter(([, comm]) => comm !== undefined && /chrom/i.test(comm))
    .map(([pid]) => Number(pid));

const settlesWithin = <T>(promise: Promise<T>, ms: number, what: string): Promise<T> => {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
};

describe("@gleaner/playwright: blocks and crashes", function () {
  this.timeout(60_000);
  const run = chromiumAvailable();
  let site: Site;
  let slowRequested: () => void = () => {};
  const fetcher = makeFetcher();
  before(async function () {
    if (!run) this.skip();
    site = await startSite((req, res) => {
      if (req.url === "/robots.txt") return html(res, "", 404);
      if (req.url === "/challenge")
        return html(res, challenge, 403, { "cf-mitigated": "challenge", server: "cloudflare" });
      if (req.url === "/forbidden") return html(res, "<h1>Forbidden</h1>", 403);
      if (req.url === "/members") return html(res, "", 302, { location: "/login?next=/members" });
      if (req.url?.startsWith("/login")) return html(res, loginForm);
      if (req.url === "/empty") return html(res, "");
      if (req.url === "/slow") {
        slowRequested();
        return void setTimeout(() => html(res, "<p>late</p>"), 5_000);
      }
      html(res, "<h1>Welcome</h1><p>content</p>");
    });
  });
  after(async () => {
    await settlesWithin(fetcher.close(), 30_000, "closing the browser fetcher").catch((error) =>
      console.error(String(error)),
    );
    await site?.close();
  });

  const cases = [
    ["/challenge", "challenge", 403],
    ["/forbidden", "forbidden", 403],
    ["/members", "login_redirect", 200],
    ["/empty", "empty_body", 200],
  ] as const;
  for (const [path, reason, status] of cases) {
    it(`classifies ${path} as ${reason}, as a static read would`, async () => {
      const failed = failureOf(await read(fetcher, browserRequest(`${site.url}${path}`)));
      expect(failed.failure).to.deep.equal({ reason, status, finalUrl: site.url });
    });
  }

  it("a crashed browser fails the read in flight, and the next read works on a new one", async () => {
    pageOf(await read(fetcher, browserRequest(`${site.url}/`)));
    const pids = browserPids();
    expect(pids, "a running Chromium").to.have.length.greaterThan(0);
    const requested = new Promise<void>((resolve) => {
      slowRequested = resolve;
    });
    const inFlight = read(fetcher, browserRequest(`${site.url}/slow`));
    // The page is in flight once the site has its request: kill then, not after a guessed delay.
    await settlesWithin(requested, 30_000, "the browser's request for the slow page");
    for (const pid of pids) process.kill(pid, "SIGKILL");
    // Bounded: a read that never settles after a crash is the defect this test is for; say so, don't hang.
    const crashed = failureOf(await settlesWithin(inFlight, 40_000, "the read in flight when Chromium was killed"));
    expect(crashed.failure.reason).to.equal("unknown");
    expect(crashed.message).to.equal(CRASH_MESSAGE);
    const next = pageOf(
      await settlesWithin(read(fetcher, browserRequest(`${site.url}/`)), 40_000, "the read after the crash"),
    );
    expect(next.body).to.contain("Welcome");
    expect(browserPids()).not.to.include.members(pids);
  });
});
