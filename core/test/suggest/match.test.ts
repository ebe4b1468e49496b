import { readFileSync } from "node:fs";
import { parseWithHtmlparser2 } from "@gleaner/htmlparser2";
import { expect } from "chai";
import * as Effect from "effect/Effect";
import { describe, it } from "mocha";
import { selectAll, selectFirst } from "../../src/suggest/match.js";
import { pageTree } from "../../src/suggest/page-tree.js";

const booksPage = readFileSync(new URL("../../../conformance/fixtures/books/index.html", import.meta.url), "utf8");

/**
 * Suggestions choose selectors on core's own matcher; runs read them with a parser adapter. The two
 * must agree on the supported CSS, or a suggestion would be verified on one meaning and run on another.
 */
describe("suggest: core's selector matcher agrees with the parser", () => {
  const document = Effect.runSync(parseWithHtmlparser2(booksPage, "http://books.local/index.html"));
  const tree = pageTree(document.outline());
  const texts = (nodes: ReadonlyArray<{ tag: string }>) => nodes.map((n) => tree.text(n as never));

  const documentSelectors = [
    "article.product_pod",
    "ol.row > li",
    "ol li article h3 > a",
    "li.next > a",
    'a[href="catalogue/page-2.html"]',
    'a[href^="catalogue/"]',
    'p[class~="Three"]',
    "#default ol.row",
    "div.side_categories ul > li > ul > li",
    "section > div > ol > li",
    "p.star-rating.Three",
    "body > div > div > div",
  ];
  for (const selector of documentSelectors) {
    it(`selects what the parser selects in the document: ${selector}`, () => {
      const expected = document.root.select(selector).map((e) => e.text());
      expect(texts(selectAll(tree, tree.root, selector))).to.deep.equal(expected);
      const first = selectFirst(tree, tree.root, selector);
      expect(first === null ? null : tree.text(first)).to.equal(document.root.first(selector)?.text() ?? null);
    });
  }

  it("inside an item, only the item's own descendants count (an ancestor outside never does)", () => {
    const items = selectAll(tree, tree.root, "article.product_pod");
    const parsed = document.root.select("article.product_pod");
    expect(items).to.have.length(parsed.length);
    for (const selector of ["h3 > a", "div p", "section h3", "article p", "p.price_color", "img"]) {
      items.forEach((item, i) => {
        expect(texts(selectAll(tree, item, selector)), `${selector} in item ${i}`).to.deep.equal(
          parsed[i]!.select(selector).map((e) => e.text()),
        );
      });
    }
  });

  it("text is the parser's text: whitespace collapsed, entities decoded", () => {
    const items = selectAll(tree, tree.root, "p.price_color");
    expect(tree.text(items[0]!)).to.equal("£51.77");
    expect(texts(items)).to.deep.equal(document.root.select("p.price_color").map((e) => e.text()));
  });

  it("matches nothing for selectors outside the supported CSS rather than guessing", () => {
    expect(selectAll(tree, tree.root, "li:nth-child(2)")).to.deep.equal([]);
    expect(selectAll(tree, tree.root, "h3 + p")).to.deep.equal([]);
    expect(selectFirst(tree, tree.root, "a, p")).to.equal(null);
  });
});
