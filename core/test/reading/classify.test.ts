import { expect } from "chai";
import * as FastCheck from "effect/FastCheck";
import { describe, it } from "mocha";
import {
  classifyResponse,
  decodeHtml,
  detectChallenge,
  headersFromRecord,
  isLoginWall,
  parseRetryAfter,
  utf8Excerpt,
  visibleText,
} from "../../src/reading/index.js";
import { hasVisibleText, withoutInvisible, withoutTags } from "../../src/reading/page-text.js";

const headers = (record: Record<string, string> = {}) => headersFromRecord(record);
const judge = (
  html: string,
  status = 200,
  extra: Record<string, string> = {},
  finalUrl = "https://shop.example/list",
) => classifyResponse({ status, headers: headers(extra), html, requestedUrl: "https://shop.example/list", finalUrl });
const page = (body: string) => `<html><head><title>Shop</title></head><body>${body}</body></html>`;

/** hasVisibleText(html) is visibleText(html).length > 0, a RangeError included. */
const answersAsVisibleText = (html: string) => {
  let expected: boolean | "throws";
  try {
    expected = visibleText(html).length > 0;
  } catch {
    expected = "throws";
  }
  if (expected === "throws") expect(() => hasVisibleText(html), html).to.throw(RangeError);
  else expect(hasVisibleText(html), html).to.equal(expected);
};

describe("reading: response classification", () => {
  it("a normal page is ok", () => expect(judge(page("<p>Books</p>"))).to.deep.equal({ ok: true }));
  it("Cloudflare's cf-mitigated header is a challenge whatever the body", () => {
    expect(judge(page("<p>x</p>"), 403, { "cf-mitigated": "challenge" })).to.include({ reason: "challenge" });
  });
  it("a challenge outranks its status (403 challenge is challenge, not forbidden)", () => {
    expect(
      judge('<title>Just a moment...</title><script src="/cdn-cgi/challenge-platform/x"></script>', 403),
    ).to.include({ reason: "challenge" });
  });
  it("maps statuses: 401/403 forbidden, 429 rate_limited, others http_error", () => {
    expect(judge(page("<p>no</p>"), 401)).to.include({ reason: "forbidden" });
    expect(judge(page("<p>no</p>"), 403)).to.include({ reason: "forbidden" });
    expect(judge(page("<p>no</p>"), 429)).to.include({ reason: "rate_limited" });
    expect(judge(page("<p>no</p>"), 502)).to.include({ reason: "http_error" });
    expect(judge(page("<p>no</p>"), 410)).to.include({ reason: "http_error" });
  });
  it("login: a redirect to /login, a redirect to a password form; a long page with a login box is fine", () => {
    expect(isLoginWall("https://a.example/list", "https://a.example/users/sign_in", page("<p>Sign in</p>"))).to.equal(
      true,
    );
    expect(isLoginWall("https://a.example/list", "https://a.example/x", page('<input type="password">'))).to.equal(
      true,
    );
    const long = page(
      `${"<p>Lots of real content in this catalogue page.</p>".repeat(60)}<form><input type=password></form>`,
    );
    expect(isLoginWall("https://a.example/list", "https://a.example/list", long)).to.equal(false);
  });
  it("empty_body for nothing visible (scripts, styles and comments are not text)", () => {
    expect(judge("")).to.include({ reason: "empty_body" });
    expect(judge(page("<script>var x = 1</script><!-- hi --><img src=x>"))).to.include({ reason: "empty_body" });
  });
  it("names each vendor by its marker, header signatures first in their order, whatever else the body holds", () => {
    const cases: Array<[string, Record<string, string>, string | null]> = [
      [page("<p>Books</p>"), {}, null],
      [page('<script src="/cdn-cgi/challenge-platform/h/b"></script>'), {}, "Cloudflare"],
      ["<title> Just a moment...</title>", {}, "Cloudflare"],
      [page('<script src="https://geo.captcha-delivery.com/c.js"></script>'), {}, "DataDome"],
      [page("<script>var dd={'rt':'c','cid':'x'}</script>"), {}, "DataDome"],
      [page('<div id="px-captcha"></div>'), {}, "PerimeterX"],
      [page("<p>Incapsula incident ID: 1</p>"), {}, "Incapsula"],
      [page('<div id="sec-if-cpt-container"></div>'), {}, "Akamai"],
      // A DataDome body under Cloudflare's header is Cloudflare's (its header signature comes first) ...
      [
        page('<script src="https://captcha-delivery.com/c.js"></script>'),
        { "cf-mitigated": "challenge" },
        "Cloudflare",
      ],
      // ... a body without any marker is named by its headers alone ...
      [page("<p>Books</p>"), { "x-datadome": "protected", "x-dd-b": "1" }, "DataDome"],
      // ... and a body marker outranks a later vendor's headers.
      [page('<div class="px-captcha"></div>'), { "x-datadome": "1", "x-datadome-cid": "c" }, "DataDome"],
      [page('<div class="g-recaptcha"></div><p>Please verify you are a human</p>'), {}, "CAPTCHA"],
      [
        page(`<div class="g-recaptcha"></div>${"<p>A long catalogue page with a contact form.</p>".repeat(20)}`),
        {},
        null,
      ],
    ];
    for (const [html, extra, vendor] of cases) {
      expect(detectChallenge(html, headers(extra)), html.slice(0, 80)).to.equal(vendor);
    }
  });
  it("visibleText decodes entities and collapses whitespace", () => {
    expect(visibleText("<p> a&amp;b \n&#163;5&nbsp;</p>")).to.equal("a&b £5");
  });
  it("Retry-After: seconds or an HTTP date", () => {
    expect(parseRetryAfter("120", 0)).to.equal(120_000);
    expect(parseRetryAfter("Thu, 01 Jan 1970 00:00:10 GMT", 4000)).to.equal(6000);
    expect(parseRetryAfter("soon", 0)).to.equal(null);
  });
  it("charset: header, then meta, then UTF-8", () => {
    const latin = Buffer.from("<p>Caf\u00e9</p>", "latin1");
    expect(decodeHtml(latin, "text/html; charset=ISO-8859-1")).to.contain("Café");
    expect(decodeHtml(Buffer.concat([Buffer.from('<meta charset="windows-1252">'), latin]), "text/html")).to.contain(
      "Café",
    );
    expect(decodeHtml(Buffer.from("<p>Café</p>"), null)).to.contain("Café");
  });
  it("excerpts stop at 2048 UTF-8 bytes without splitting a character", () => {
    const text = "€".repeat(1000); // 3 bytes each
    const excerpt = utf8Excerpt(text);
    expect(excerpt.truncated).to.equal(true);
    expect(Buffer.byteLength(excerpt.text)).to.equal(2046);
    expect(excerpt.text).to.not.contain("\ufffd");
    expect(utf8Excerpt("short")).to.deep.equal({ text: "short", truncated: false });
  });
  it("excerpts cut at the last whole character that fits, whatever its width", () => {
    const mixed = "a€😀é".repeat(300); // 1 + 3 + 4 (a surrogate pair) + 2 bytes
    for (const maxBytes of [0, 1, 3, 4, 7, 8, 9, 2047, 2048, 3000, 3001]) {
      const bytes = Buffer.from(mixed);
      let end = Math.min(maxBytes, bytes.length);
      while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
      const expected = bytes.length <= maxBytes ? mixed : bytes.subarray(0, end).toString("utf8");
      expect(utf8Excerpt(mixed, maxBytes)).to.deep.equal({ text: expected, truncated: bytes.length > maxBytes });
    }
    expect(utf8Excerpt("x".repeat(2048))).to.deep.equal({ text: "x".repeat(2048), truncated: false });
    expect(utf8Excerpt("é".repeat(1024)).truncated).to.equal(false);
    expect(utf8Excerpt("é".repeat(1025))).to.deep.equal({ text: "é".repeat(1024), truncated: true });
  });
  it("hasVisibleText answers as visibleText's length does, stopping early", () => {
    const cases = [
      "",
      "   \n\t ",
      "<p> &nbsp; &#160; &#xA0; &#32; </p>",
      "<p>&amp;</p>",
      "<p>&unknown;</p>",
      "<p>&#0;</p>",
      "<script>var a = '<p>x</p>'</script>",
      "<head><title>T</title></head><body> </body>",
      "<!-- <p>hidden</p> --><p> </p>",
      "<a <!-- c --> b>",
      "<a title='>'>",
      "x",
      "<p>text</p><p>&#99999999;</p>",
      "<p> </p><p>&#x110000;</p>",
      "<p>&#x10FFFF;</p>",
      "<style>p{}</style>\u00a0\ufeff<br>",
      "<svg><text>drawn</text></svg>",
      "<template><p>later</p></template> . ",
    ];
    for (const html of cases) answersAsVisibleText(html);
  });
  it("strips tags as /<[^>]*>/g does, and reads a page of '<' without '>' once", () => {
    const pieces = FastCheck.array(FastCheck.constantFrom("<", ">", "<p>", "x", " ", "<a b='>'>", "</p>"), {
      maxLength: 30,
    });
    FastCheck.assert(
      FastCheck.property(pieces, (chosen) => {
        const text = chosen.join("");
        expect(withoutTags(text), text).to.equal(text.replace(/<[^>]*>/g, " "));
      }),
      { numRuns: 20_000, seed: 23 },
    );
    // Scanned once per '<', this page took hours; read once it is immediate (mocha's timeout is the bound).
    const hostile = `<form><input type=password></form>${"<".repeat(1_000_000)}`;
    expect(visibleText(hostile)).to.equal(`${"<".repeat(1_000_000)}`);
  });
  it("drops scripts, styles and comments as one regex replace does, and reads a page of unclosed ones once", () => {
    // The rule as one regex (what visibleText applied before): the oracle.
    const invisible = /<(script|style|noscript|template|svg|head)\b[^>]*>[\s\S]*?<\/\1\s*>|<!--[\s\S]*?-->/gi;
    const parts = ["<", ">", "x", " ", "<!--", "-->", "<script>", "</script>", "<SCRIPT a='>'>", "</script >"];
    const more = ["<scripts>", "<svg>", "</SVG>", "<head", "<header>", "</head>", "<style>", "</style>", "-", "!"];
    const pieces = FastCheck.array(FastCheck.constantFrom(...parts, ...more), { maxLength: 30 });
    FastCheck.assert(
      FastCheck.property(pieces, (chosen) => {
        const text = chosen.join("");
        expect(withoutInvisible(text), text).to.equal(text.replace(invisible, " "));
      }),
      { numRuns: 20_000, seed: 29 },
    );
    // Each of these took minutes or hours when every `<` started a scan to the end of the page.
    for (const opener of ["<script>", "<!--", "<style a>"]) {
      const hostile = `<p>shown</p>${opener.repeat(200_000)}`;
      expect(visibleText(hostile).startsWith("shown"), opener).to.equal(true);
      expect(hasVisibleText(hostile), opener).to.equal(true);
      const blank = `<p> </p>${opener.repeat(200_000)}`;
      expect(hasVisibleText(blank), opener).to.equal(visibleText(blank).length > 0);
    }
  });
  it("hasVisibleText answers as visibleText's length does on any mix of tags, comments, scripts and references", () => {
    const parts = ["<", ">", "<p>", "</p>", "<!--", "-->", "<script>", "</script>", "<head x='>'>", "</head >"];
    const more = [
      "<svg>",
      "</SVG>",
      "<a b='<!-- c -->'>",
      "&amp;",
      "&#32;",
      "&nbsp;",
      "&#x20;",
      "&#9999999;",
      " ",
      "\n",
    ];
    const text = ["x", "\u00a0", "<style", "</style>", "&", ";", "=", "'", "<template>", "</template>"];
    const pieces = FastCheck.array(FastCheck.constantFrom(...parts, ...more, ...text), { maxLength: 24 });
    FastCheck.assert(
      FastCheck.property(pieces, (chosen) => answersAsVisibleText(chosen.join(""))),
      { numRuns: 20_000, seed: 17 },
    );
  });
});
