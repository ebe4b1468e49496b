import { expect } from "chai";
import { unsupportedSelectorPart } from "../src/rules/selector.js";

describe("the supported CSS subset", () => {
  for (const selector of [
    "article",
    "article.product_pod",
    "#default",
    "ol.row > li > article.product_pod",
    "ul.pager li.next a",
    "p.star-rating.Three",
    'a[href^="catalogue/"]',
    "[data-id]",
    "h3 > a[title]",
  ]) {
    it(`accepts ${selector}`, () => expect(unsupportedSelectorPart(selector)).to.equal(null));
  }
  for (const [selector, named] of [
    ["li:first-child", ":first-child"],
    ["p::text", "::text"],
    ["h1 + p", "+"],
    ["h1 ~ p", "~"],
    ["*", "*"],
    ["a, b", ","],
    ["> a", "combinator"],
    ["svg|rect", "namespaced"],
    ["a[href", "not a valid CSS selector"],
    ["a:has(b)", ":has"],
  ] as const) {
    it(`refuses ${selector}, naming ${named}`, () => {
      const problem = unsupportedSelectorPart(selector);
      expect(problem).to.be.a("string");
      expect(problem).to.contain(named);
    });
  }
});
