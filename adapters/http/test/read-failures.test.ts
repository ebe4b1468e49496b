import { expect } from "chai";
import { after, before, describe, it } from "mocha";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
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
  tripped,
} from "./loopback.js";

const article = html(
  "<ol><li><article class='product_pod'><h3>A Light in the Attic</h3><p>£51.77</p></article></li></ol>",
);

describe("http fetcher: reads and classifies every readFailure reason (loopback servers)", () => {
  let site: Loopback;
  let fetcher: FetcherHarness;
  let origin: string;
  let flaky = 0;

  before(async () => {
    site = await startServer(
      routes({
        "/ok": sendHtml(article),
        "/ua": (request, response) =>
          response.writeHead(200, { "content-type": "text/html" }).end(html(`<p>${request.headers["user-agent"]}</p>`)),
        "/gzip": (_q, r) =>
          r.writeHead(200, { "content-type": "text/html", "content-encoding": "gzip" }).end(gzipSync(article)),
        "/br": (_q, r) =>
          r.writeHead(200, { "content-type": "text/html", "content-encoding": "br" }).end(brotliCompressSync(article)),
        "/deflate": (_q, r) =>
          r.writeHead(200, { "content-type": "text/html", "content-encoding": "deflate" }).end(deflateSync(article)),
        "/latin1-header": (_q, r) =>
          r
            .writeHead(200, { "content-type": "text/html; charset=iso-8859-1" })
            .end(Buffer.from(html("<p>Caf\u00e9 \u00a351</p>").replace('<meta charset="utf-8">', ""), "latin1")),
        "/latin1-meta": (_q, r) =>
          r
            .writeHead(200, { "content-type": "text/html" })
            .end(Buffer.from(html("<p>Caf\u00e9</p>").replace('charset="utf-8"', 'charset="windows-1252"'), "latin1")),
        "/redirect": (_q, r) => r.writeHead(302, { location: "/ok" }).end(),
        "/forbidden": sendHtml(html("<p>Forbidden</p>"), 403),
        "/unauthorized": sendHtml(html("<p>Please authenticate</p>"), 401),
        "/rate-limited": sendHtml(html("<p>Slow down</p>"), 429, { "retry-after": "3600" }),
        "/cloudflare": sendHtml(
          '<!DOCTYPE html><html><head><title>Just a moment...</title></head><body><div id="cf-chl-widget"></div><script src="/cdn-cgi/challenge-platform/h/b/orchestrate/chl_page/v1"></script></body></html>',
          403,
        ),
        "/turnstile-200": sendHtml(
          html(
            '<div class="cf-turnstile" data-sitekey="x"></div><script src="https://challenges.cloudflare.com/turnstile/v0/api.js"></script><p>Checking</p>',
          ),
        ),
        "/datadome": sendHtml(
          html(
            "<script>var dd={'rt':'c','cid':'AHrlqAAA','hsh':'1'}</script><script src=\"https://ct.captcha-delivery.com/c.js\"></script>",
          ),
          403,
          { "x-datadome": "protected" },
        ),
        "/perimeterx": sendHtml(
          html(
            '<div id="px-captcha"></div><p>Press &amp; Hold to confirm you are a human</p><script>window._pxAppId="PXabc"</script>',
          ),
        ),
        "/incapsula": sendHtml(
          html(
            '<iframe src="/_Incapsula_Resource?SWUDNSAI=31&xinfo=1"></iframe><p>Request unsuccessful. Incapsula incident ID: 1-2</p>',
          ),
        ),
        "/recaptcha": sendHtml(
          html(
            '<form><div class="g-recaptcha" data-sitekey="k"></div></form><p>Our systems have detected unusual traffic from your computer network.</p><script src="https://www.google.com/recaptcha/api.js"></script>',
          ),
        ),
        "/hcaptcha": sendHtml(
          html(
            '<div class="h-captcha" data-sitekey="k"></div><script src="https://hcaptcha.com/1/api.js"></script><p>Please verify you are human</p>',
          ),
        ),
        "/contact-with-recaptcha": sendHtml(
          html(
            `${"<p>Real catalogue content with plenty of text about books.</p>".repeat(20)}<form><div class="g-recaptcha"></div></form>`,
          ),
        ),
        "/members": (_q, r) => r.writeHead(302, { location: "/accounts/login/?next=/members" }).end(),
        "/accounts/login/": sendHtml(
          html('<form method="post"><input name="u"><input type="password" name="p"></form>', "Sign in"),
        ),
        "/gated": (_q, r) => r.writeHead(302, { location: "/welcome" }).end(),
        "/welcome": sendHtml(html('<h1>Welcome back</h1><form><input type="password" name="pw"></form>')),
        "/in-place-login": sendHtml(
          html('<h1>Members only</h1><form><input type="text" name="user"><input type="password" name="pass"></form>'),
        ),
        "/empty": sendHtml(""),
        "/textless": sendHtml(
          html("<div><img src='a.png'></div><script>var a = 'only script text';</script><style>p{}</style>"),
        ),
        "/reset": (request) => request.socket.destroy(),
        "/reset-once": (request, response) => {
          flaky++;
          if (flaky === 1) return request.socket.destroy();
          sendHtml(article)(request, response);
        },
        "/slow-headers": (_q, r) =>
          setTimeout(() => r.writeHead(200, { "content-type": "text/html" }).end(article), 1500),
        "/slow-body": (_q, r) => {
          r.writeHead(200, { "content-type": "text/html" });
          r.write("<html><body><p>partial");
          setTimeout(() => r.end("</p></body></html>"), 1500);
        },
        "/trickle": (_q, r) => {
          // A chunk every 50 ms for 3 s: no single wait is long, the whole read is.
          r.writeHead(200, { "content-type": "text/html" });
          let sent = 0;
          const timer = setInterval(() => {
            if (r.destroyed || ++sent > 60) {
              clearInterval(timer);
              if (!r.destroyed) r.end("</body></html>");
            } else r.write("<p>more</p>");
          }, 50);
        },
        "/server-error": sendHtml(html("<p>Oops</p>"), 500),
        "/not-found": sendHtml(html("<p>Gone</p>"), 404),
        "/pdf": (_q, r) => r.writeHead(200, { "content-type": "application/pdf" }).end("%PDF-1.4"),
        "/json": (_q, r) => r.writeHead(200, { "content-type": "application/json" }).end('{"a":1}'),
        "/untyped-binary": (_q, r) => r.end(Buffer.from([0, 1, 2, 3, 4, 5])),
        "/bad-gzip": (_q, r) =>
          r.writeHead(200, { "content-type": "text/html", "content-encoding": "gzip" }).end("not gzip at all"),
        "/huge": (_q, r) =>
          r.writeHead(200, { "content-type": "text/html" }).end(html(`<p>${"x".repeat(300_000)}</p>`)),
        "/huge-chunked": (_q, r) => {
          r.writeHead(200, { "content-type": "text/html" });
          for (let i = 0; i < 40; i++) r.write(`<p>${"y".repeat(10_000)}</p>`);
          r.end();
        },
        "/gzip-bomb": (_q, r) =>
          r
            .writeHead(200, { "content-type": "text/html", "content-encoding": "gzip" })
            .end(gzipSync(Buffer.alloc(5_000_000, 0x20))),
        "/loop": (_q, r) => r.writeHead(302, { location: "/loop" }).end(),
        "/to-ftp": (_q, r) => r.writeHead(301, { location: "ftp://127.0.0.1/file" }).end(),
      }),
    );
    origin = site.url;
    fetcher = makeFetcher({ ...loopbackOnly, maxBodyBytes: 200_000, headersTimeoutMs: 500, bodyTimeoutMs: 500 });
  });
  after(async () => {
    await fetcher.dispose();
    await site.close();
    expect(tripped, "no socket may leave loopback").to.deep.equal([]);
  });

  const expectFailure = async (path: string, reason: string, status: number | null) => {
    const failure = await readFailure(fetcher, pageRequest(`${origin}${path}?token=secret#frag`));
    expect(failure.failure).to.deep.equal({ reason, status, finalUrl: origin });
    return failure;
  };

  it("reads an HTML page, following a redirect, with the final URL and the decoded body", async () => {
    const page = await readPage(fetcher, pageRequest(`${origin}/redirect`));
    expect(page.finalUrl).to.equal(`${origin}/ok`);
    expect(page.status).to.equal(200);
    expect(page.body).to.contain("A Light in the Attic").and.contain("£51.77");
    expect(page.attempts).to.equal(1);
  });

  it("names Gleaner in the User-Agent with a URL for site owners", async () => {
    const page = await readPage(fetcher, pageRequest(`${origin}/ua`));
    expect(page.body).to.match(/Gleaner\/[\d.]+; \+https:\/\//);
  });

  for (const encoding of ["gzip", "br", "deflate"]) {
    it(`decompresses ${encoding} bodies`, async () => {
      const page = await readPage(fetcher, pageRequest(`${origin}/${encoding}`));
      expect(page.body).to.contain("£51.77");
    });
  }

  it("decodes the charset named in the Content-Type header", async () => {
    const page = await readPage(fetcher, pageRequest(`${origin}/latin1-header`));
    expect(page.body).to.contain("Café £51");
  });

  it("decodes the charset named in a <meta> when the header names none", async () => {
    const page = await readPage(fetcher, pageRequest(`${origin}/latin1-meta`));
    expect(page.body).to.contain("Café");
  });

  it("401 and 403 are forbidden", async () => {
    await expectFailure("/forbidden", "forbidden", 403);
    await expectFailure("/unauthorized", "forbidden", 401);
  });

  it("429 is rate_limited, and a Retry-After beyond the bound is not waited for", async () => {
    const started = Date.now();
    const failure = await readFailure(makeFetcherWithRetries(), pageRequest(`${origin}/rate-limited`));
    expect(failure.failure.reason).to.equal("rate_limited");
    expect(failure.attempts).to.equal(1);
    expect(Date.now() - started).to.be.below(2000);
  });

  const challenges: Record<string, number> = {
    "/cloudflare": 403,
    "/turnstile-200": 200,
    "/datadome": 403,
    "/perimeterx": 200,
    "/incapsula": 200,
    "/recaptcha": 200,
    "/hcaptcha": 200,
  };
  for (const [path, status] of Object.entries(challenges)) {
    it(`${path.slice(1)} interstitial (status ${status}) is a challenge, never a page`, async () => {
      await expectFailure(path, "challenge", status);
    });
  }

  it("a real page with a reCAPTCHA contact form is still a page", async () => {
    const page = await readPage(fetcher, pageRequest(`${origin}/contact-with-recaptcha`));
    expect(page.body).to.contain("Real catalogue content");
  });

  it("a redirect to a login path is login_redirect, with the login page's origin only", async () => {
    await expectFailure("/members", "login_redirect", 200);
  });

  it("a redirect to a page with a password form is login_redirect", async () => {
    await expectFailure("/gated", "login_redirect", 200);
  });

  it("a short page that is only a login form is login_redirect", async () => {
    await expectFailure("/in-place-login", "login_redirect", 200);
  });

  it("an empty body and a body with no visible text are empty_body", async () => {
    await expectFailure("/empty", "empty_body", 200);
    await expectFailure("/textless", "empty_body", 200);
  });

  it("a connection the server resets is connection_reset", async () => {
    await expectFailure("/reset", "connection_reset", null);
  });

  it("a reset is retried with backoff and the second attempt's page is returned", async () => {
    const page = await readPage(makeFetcherWithRetries(), pageRequest(`${origin}/reset-once`));
    expect(page.attempts).to.equal(2);
    expect(page.body).to.contain("£51.77");
  });

  it("headers that never come and a body that stalls are timeout", async () => {
    await expectFailure("/slow-headers", "timeout", null);
    await expectFailure("/slow-body", "timeout", null);
  });

  it("a body that trickles in, each chunk on time, is cut at the attempt's deadline as timeout", async () => {
    const quick = makeFetcher({ ...loopbackOnly, attemptTimeoutMs: 300 });
    try {
      const failure = await readFailure(quick, pageRequest(`${origin}/trickle`));
      expect(failure.failure).to.deep.equal({ reason: "timeout", status: null, finalUrl: origin });
      // The same fetcher reads the next page whole: the deadline was that attempt's alone.
      expect((await readPage(quick, pageRequest(`${origin}/ok`))).status).to.equal(200);
    } finally {
      await quick.dispose();
    }
  });

  it("a refused connection is network", async () => {
    const closed = await startServer(() => {});
    const url = closed.url;
    await closed.close();
    const failure = await readFailure(fetcher, pageRequest(`${url}/x`));
    expect(failure.failure).to.deep.equal({ reason: "network", status: null, finalUrl: url });
  });

  it("other 4xx and 5xx are http_error with their status", async () => {
    await expectFailure("/server-error", "http_error", 500);
    await expectFailure("/not-found", "http_error", 404);
  });

  it("a 5xx is retried up to the attempt bound", async () => {
    const before = site.requests.filter((line) => line.startsWith("GET /server-error")).length;
    const failure = await readFailure(makeFetcherWithRetries(), pageRequest(`${origin}/server-error`));
    expect(failure.attempts).to.equal(3);
    expect(site.requests.filter((line) => line.startsWith("GET /server-error")).length - before).to.equal(3);
  });

  it("a 403 is not retried", async () => {
    const failure = await readFailure(makeFetcherWithRetries(), pageRequest(`${origin}/forbidden`));
    expect(failure.attempts).to.equal(1);
  });

  it("PDF, JSON, untyped binary and undecodable gzip are invalid_content", async () => {
    await expectFailure("/pdf", "invalid_content", 200);
    await expectFailure("/json", "invalid_content", 200);
    await expectFailure("/untyped-binary", "invalid_content", 200);
    await expectFailure("/bad-gzip", "invalid_content", null);
  });

  it("a body over the size limit is limit_exceeded, declared, chunked or decompressed", async () => {
    await expectFailure("/huge", "limit_exceeded", null);
    await expectFailure("/huge-chunked", "limit_exceeded", null);
    await expectFailure("/gzip-bomb", "limit_exceeded", null);
  });

  it("more than 10 redirects is limit_exceeded", async () => {
    const before = site.requests.filter((line) => line.startsWith("GET /loop")).length;
    await expectFailure("/loop", "limit_exceeded", 302);
    expect(site.requests.filter((line) => line.startsWith("GET /loop")).length - before).to.equal(11);
  });

  it("a redirect to a non-http scheme is unsafe_target", async () => {
    const failure = await readFailure(fetcher, pageRequest(`${origin}/to-ftp`));
    expect(failure.failure).to.deep.equal({ reason: "unsafe_target", status: null, finalUrl: null });
  });

  it("render: browser is refused with a message naming the browser fetcher", async () => {
    const failure = await readFailure(fetcher, pageRequest(`${origin}/ok`, { render: "browser" }));
    expect(failure.failure.reason).to.equal("unknown");
    expect(failure.message).to.contain("playwright");
  });

  it("an interrupted read does not become a page or a failure (the fiber is interrupted)", async () => {
    const Effect = await import("effect/Effect");
    const ManagedRuntime = await import("effect/ManagedRuntime");
    const Exit = await import("effect/Exit");
    const { Fetcher } = await import("@gleaner/core");
    const { HttpFetcherLive } = await import("../src/index.js");
    const runtime = ManagedRuntime.make(HttpFetcherLive(loopbackOnly));
    const exit = await runtime.runPromiseExit(
      Effect.flatMap(Fetcher, (f) => f.read(pageRequest(`${origin}/slow-headers`))).pipe(Effect.timeout("100 millis")),
    );
    await runtime.dispose();
    expect(Exit.isFailure(exit)).to.equal(true);
  });

  let withRetries: FetcherHarness | undefined;
  const makeFetcherWithRetries = () => {
    withRetries ??= makeFetcher({
      ...loopbackOnly,
      retry: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 20, maxRetryAfterMs: 1000 },
    });
    return withRetries;
  };
  after(async () => {
    await withRetries?.dispose();
  });
});
