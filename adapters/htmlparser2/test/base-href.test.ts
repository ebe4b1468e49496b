import { documentBaseUrl } from "@gleaner/core";
import { expect } from "chai";
import { selectOne } from "css-select";
import type { Element } from "domhandler";
import { getAttributeValue } from "domutils";
import * as Effect from "effect/Effect";
import { parseDocument } from "htmlparser2";
import { describe, it } from "mocha";
import { parseWithHtmlparser2 } from "../src/index.js";

/** A small seeded generator (mulberry32): the same documents on every run. */
const seeded = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

const pageUrl = "http://x.test/a/b/page.html";

/** The base URL as the adapter found it before: a `base[href]` query over the finished tree. */
const byQuery = (html: string): string => {
  const base = selectOne<Element, Element>("base[href]", parseDocument(html, { decodeEntities: true }).children);
  return documentBaseUrl(pageUrl, base ? (getAttributeValue(base, "href") ?? null) : null);
};

const byParse = (html: string): string => Effect.runSync(parseWithHtmlparser2(html, pageUrl)).baseUrl;

describe("htmlparser2: the <base href> found while parsing", () => {
  it("is the base a query over the parsed tree finds (4 000 generated documents)", () => {
    const random = seeded(7);
    const pick = <T>(xs: ReadonlyArray<T>): T => xs[Math.floor(random() * xs.length)]!;
    const bases = [
      '<base href="/shop/">',
      '<BASE HREF="../up/">',
      "<base>",
      '<base target="_top">',
      "<base href>",
      '<base href="">',
      "<base href='q/'/>",
      '<base data-href="/no/">',
      '<base href="http://other.test/x/">',
    ];
    const open = ["<div>", "<template>", "<TEMPLATE>", "<head>", "<body>", "<p>", "<svg>", "<table>", "<noscript>"];
    const close = ["</div>", "</template>", "</head>", "</p>", "</svg>", "</table>", "</noscript>", "</body>"];
    const other = ["text", "<!-- <base href='/c/'> -->", "<script>'<base href=\"/s/\">'</script>", "<br>", "&amp;"];
    let withBase = 0;
    for (let n = 0; n < 4000; n++) {
      const parts: string[] = [];
      const length = 1 + Math.floor(random() * 12);
      for (let i = 0; i < length; i++) {
        const r = random();
        parts.push(r < 0.3 ? pick(bases) : r < 0.6 ? pick(open) : r < 0.8 ? pick(close) : pick(other));
      }
      const html = parts.join("");
      const expected = byQuery(html);
      expect(byParse(html), html).to.equal(expected);
      if (expected !== pageUrl) withBase++;
    }
    // The documents do set a base often, not only fall back to the page URL.
    expect(withBase).to.be.greaterThan(1000);
  });

  it("skips a base without href and one inside a template, and takes the first that is left", () => {
    const html =
      '<html><head><base target="_top"><template><base href="/in-template/"></template>' +
      '<base href="/shop/"><base href="/later/"></head><body></body></html>';
    expect(byParse(html)).to.equal("http://x.test/shop/");
    expect(byParse("<p>no base</p>")).to.equal(pageUrl);
  });
});
