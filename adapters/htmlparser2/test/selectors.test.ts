import { expect } from "chai";
import * as Effect from "effect/Effect";
import { parseWithHtmlparser2 } from "../src/index.js";
import { selectorCompiles } from "../src/selectors.js";

const items = Array.from(
  { length: 50 },
  (_, n) =>
    `<article id="a${n}"><div><p>in ${n}</p></div><p>direct ${n}</p><span>s${n}</span><b>after ${n}</b></article>`,
).join("");
const html = `<html><body><div><p>outside</p></div>${items}</body></html>`;

describe("htmlparser2 selectors: compiled once, relative to each element", () => {
  it("answers each item's own matches from one compilation per string (the query and its first part)", () => {
    const doc = Effect.runSync(parseWithHtmlparser2(html, "https://shop.example/"));
    const articles = doc.root.select("article");
    expect(articles).to.have.length(50);
    const before = selectorCompiles();
    for (const [n, article] of articles.entries()) {
      // "div p" relative to the article: only its own nested p, never the document's outer div.
      expect(article.select("div p").map((p) => p.text())).to.deep.equal([`in ${n}`]);
      expect(article.select("> p").map((p) => p.text())).to.deep.equal([`direct ${n}`]);
      expect(article.select("span + b").map((b) => b.text())).to.deep.equal([`after ${n}`]);
    }
    expect(selectorCompiles() - before).to.be.at.most(6);
    expect(doc.root.select("div p").map((p) => p.text())[0]).to.equal("outside");
    // The same string selected from the document is absolute: every nested p of the page.
    expect(doc.root.select("div p")).to.have.length(51);
  });

  it("first is the first of select, for relative, sibling and absolute selectors, and null when none match", () => {
    const doc = Effect.runSync(parseWithHtmlparser2(html, "https://shop.example/"));
    for (const [n, article] of doc.root.select("article").entries()) {
      for (const selector of ["div p", "> p", "p", "span + b", "span ~ b", "b, span", "i"]) {
        expect(article.first(selector)?.text() ?? null).to.equal(article.select(selector)[0]?.text() ?? null);
      }
      expect(article.first("p")?.text()).to.equal(`in ${n}`);
      expect(article.first("i")).to.equal(null);
    }
    expect(doc.root.first("div p")?.text()).to.equal("outside");
    expect(doc.root.first("article > p")?.text()).to.equal("direct 0");
  });
});
