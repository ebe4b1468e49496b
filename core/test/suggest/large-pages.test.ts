import { parseWithHtmlparser2 } from "@gleaner/htmlparser2";
import { expect } from "chai";
import * as Effect from "effect/Effect";
import { describe, it } from "mocha";
import { pageTree, SUGGEST_MAX_ELEMENTS } from "../../src/suggest/page-tree.js";
import { suggestCandidates } from "../../src/suggest/suggest.js";

const pageUrl = "https://shop.example/all-products.html";

const outlineOf = (html: string) => {
  const document = Effect.runSync(parseWithHtmlparser2(html, pageUrl));
  try {
    return { outline: document.outline(), baseUrl: document.baseUrl };
  } finally {
    document.dispose();
  }
};

/** `count` product records of four elements each in one listing: 30,000 of them is 120,000 elements. */
const listing = (count: number, classes: (i: number) => string = () => "") =>
  `<!doctype html><html><head><title>All products</title></head><body><main><div class="results">${Array.from(
    { length: count },
    (_, i) =>
      `<div class="item${classes(i)}"><a href="/p/${i}">Product ${i}</a><span class="price">$${i}.99</span><p>Thing ${i % 97}</p></div>`,
  ).join("")}</div></main></body></html>`;

describe("suggest: pages larger than suggestions examine", () => {
  it("a page at the document limits still gets its records, found among its first elements, and says so", () => {
    // 24,000 records: 96,000 elements, within the 100,000 a page may have.
    const { outline, baseUrl } = outlineOf(listing(24_000));
    const [top] = suggestCandidates(outline, { pageUrl, baseUrl });
    expect(top?.source.itemSelector).to.equal("div.item");
    expect(((top?.source.fields ?? []) as Array<{ name: string }>).map((f) => f.name)).to.include.members([
      "url",
      "price",
    ]);
    expect(top?.why).to.include(`the page has more than ${SUGGEST_MAX_ELEMENTS} elements`);
    expect(top?.why).to.include("the preview reads the whole page");
  });

  it("examines at most the budget's elements, and every record it examines whole", () => {
    const tree = pageTree(outlineOf(listing(24_000)).outline);
    expect(tree.complete).to.equal(false);
    expect(tree.nodes.length).to.be.at.most(SUGGEST_MAX_ELEMENTS);
    const records = tree.byClass.get("item") ?? [];
    // The budget is spent on whole records: nearly all of it, and none cut short.
    expect(records.length).to.be.greaterThan((SUGGEST_MAX_ELEMENTS - 10) / 4 - 1);
    expect(records.every((r) => r.children.map((c) => c.tag).join(",") === "a,span,p")).to.equal(true);
  });

  it("a page within the budget is examined whole and says nothing of it", () => {
    const { outline, baseUrl } = outlineOf(listing(300));
    expect(pageTree(outline).complete).to.equal(true);
    const [top] = suggestCandidates(outline, { pageUrl, baseUrl });
    expect(top?.source.itemSelector).to.equal("div.item");
    expect(top?.why).not.to.include("elements:");
  });

  it("records carrying thousands of classes, each shared by a few of them, are still one suggestion", () => {
    // 3,000 records of 60 classes, each class on three records: 60,000 ways to split the list.
    const classes = (i: number) => Array.from({ length: 60 }, (_, k) => ` k${k}-${Math.floor(i / 3)}`).join("");
    const { outline, baseUrl } = outlineOf(listing(3_000, classes));
    const [top] = suggestCandidates(outline, { pageUrl, baseUrl });
    expect(top?.source.itemSelector).to.equal("div.item");
  });
});
