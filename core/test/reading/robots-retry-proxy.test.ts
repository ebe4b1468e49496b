import { expect } from "chai";
import { describe, it } from "mocha";
import {
  defaultRetryPolicy,
  parseProxyUrls,
  planRoutes,
  RobotsCache,
  robotsAllow,
  robotsRulesFrom,
  retryDelayMs,
} from "../../src/reading/index.js";

describe("reading: robots rules and cache", () => {
  const file = (body: string) =>
    robotsRulesFrom({ kind: "response", status: 200, body, url: "https://s.example/robots.txt" });
  it("uses the Gleaner group, else *", () => {
    const rules = file("User-agent: *\nDisallow: /\n\nUser-agent: Gleaner\nDisallow: /admin\n");
    expect(robotsAllow(rules, "https://s.example/books")).to.equal(true);
    expect(robotsAllow(rules, "https://s.example/admin/x")).to.equal(false);
    expect(robotsAllow(file("User-agent: *\nDisallow: /\n"), "https://s.example/books")).to.equal(false);
  });
  it("4xx allows all; 5xx and unreachable disallow all", () => {
    expect(
      robotsRulesFrom({ kind: "response", status: 404, body: "", url: "https://s.example/robots.txt" }).kind,
    ).to.equal("allow-all");
    expect(
      robotsRulesFrom({ kind: "response", status: 500, body: "", url: "https://s.example/robots.txt" }).kind,
    ).to.equal("disallow-all");
    expect(robotsRulesFrom({ kind: "unreachable", why: "reset" }).kind).to.equal("disallow-all");
  });
  it("caches at most 24 h, less when Cache-Control says so", () => {
    const cache = new RobotsCache();
    const rules = file("");
    cache.set("https://a", rules, 0);
    expect(cache.get("https://a", 24 * 3600_000 - 1)).to.equal(rules);
    expect(cache.get("https://a", 24 * 3600_000)).to.equal(null);
    cache.set("https://b", rules, 0, 48 * 3600_000);
    expect(cache.get("https://b", 24 * 3600_000)).to.equal(null);
    cache.set("https://c", rules, 0, 60_000);
    expect(cache.get("https://c", 60_000)).to.equal(null);
  });
  it("keeps a failed robots.txt only briefly, backing off while it keeps failing, and says so", () => {
    const cache = new RobotsCache();
    const failed = robotsRulesFrom({ kind: "response", status: 503, body: "", url: "https://d/robots.txt" });
    const first = cache.set("https://d", failed, 0);
    expect(first.kind === "disallow-all" && first.why).to.equal(
      "robots.txt answered 503; failure 1 in a row, robots.txt is asked again after 1970-01-01T00:00:10.000Z",
    );
    expect(cache.get("https://d", 9_999)).to.equal(first);
    expect(cache.get("https://d", 10_000)).to.equal(null);
    cache.set("https://d", robotsRulesFrom({ kind: "unreachable", why: "reset" }), 10_000);
    expect(cache.get("https://d", 10_000 + 19_999)).to.not.equal(null);
    expect(cache.get("https://d", 10_000 + 20_000)).to.equal(null);
    for (let i = 0; i < 10; i++) cache.set("https://d", failed, 0);
    expect(cache.get("https://d", 5 * 60_000 - 1)).to.not.equal(null);
    expect(cache.get("https://d", 5 * 60_000)).to.equal(null);
    // A success resets the backoff: the next failure is kept 10 s again.
    cache.set("https://d", file(""), 0);
    cache.set("https://d", failed, 0);
    expect(cache.get("https://d", 10_000)).to.equal(null);
  });
});

describe("reading: retries", () => {
  const failure = (reason: "timeout" | "forbidden" | "http_error" | "rate_limited", status: number | null = null) => ({
    reason,
    status,
    finalUrl: null,
  });
  it("retries only transient reasons, up to the attempt bound", () => {
    expect(retryDelayMs(defaultRetryPolicy, 1, failure("timeout"), null, () => 0)).to.equal(250);
    expect(retryDelayMs(defaultRetryPolicy, 2, failure("timeout"), null, () => 1)).to.equal(1000);
    expect(retryDelayMs(defaultRetryPolicy, 3, failure("timeout"), null)).to.equal(null);
    expect(retryDelayMs(defaultRetryPolicy, 1, failure("forbidden", 403), null)).to.equal(null);
    expect(retryDelayMs(defaultRetryPolicy, 1, failure("http_error", 404), null)).to.equal(null);
    expect(retryDelayMs(defaultRetryPolicy, 1, failure("http_error", 503), null, () => 0)).to.equal(250);
  });
  it("honours Retry-After within the bound and gives up beyond it", () => {
    expect(retryDelayMs(defaultRetryPolicy, 1, failure("rate_limited", 429), 5000, () => 0)).to.equal(5000);
    expect(retryDelayMs(defaultRetryPolicy, 1, failure("rate_limited", 429), 120_000)).to.equal(null);
  });
});

describe("reading: proxy routes", () => {
  const proxies = parseProxyUrls("http://u:p@10.0.0.5:3128, https://proxy.example:443");
  it("redacts credentials", () => {
    expect(proxies[0]?.redacted).to.equal("http://***@10.0.0.5:3128/");
  });
  it("never → direct; auto → direct then a proxy; always → proxies, rotating", () => {
    expect(planRoutes("never", proxies)).to.deep.equal({ ok: true, routes: [{ kind: "direct" }] });
    const auto = planRoutes("auto", proxies);
    expect(auto.ok && auto.routes.map((r) => r.kind)).to.deep.equal(["direct", "proxy"]);
    const always = planRoutes("always", proxies, 1);
    expect(always.ok && always.routes.map((r) => (r.kind === "proxy" ? r.proxy.redacted : "direct"))).to.deep.equal([
      "https://proxy.example/",
      "http://***@10.0.0.5:3128/",
    ]);
    expect(planRoutes("auto", []).ok && planRoutes("auto", []).ok).to.equal(true);
  });
  it("always without proxies is an error naming GLEANER_PROXY_URLS", () => {
    const plan = planRoutes("always", []);
    expect(plan.ok).to.equal(false);
    expect(!plan.ok && plan.message).to.contain("GLEANER_PROXY_URLS");
  });
});
