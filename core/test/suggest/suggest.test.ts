import { parseWithHtmlparser2 } from "@gleaner/htmlparser2";
import { expect } from "chai";
import * as Effect from "effect/Effect";
import * as Schema from "effect/Schema";
import { describe, it } from "mocha";
import { createDatasetProblems } from "../../src/rules/dataset-rules.js";
import { unsupportedSelectorPart } from "../../src/rules/selector.js";
import { CreateDatasetRequest } from "../../src/schema/dataset.js";
import { type Candidate, suggestCandidates } from "../../src/suggest/suggest.js";

const pageUrl = "https://shop.example/catalogue/page-1.html";

const suggest = (html: string, options: Partial<Parameters<typeof suggestCandidates>[1]> = {}): Candidate[] => {
  const document = Effect.runSync(parseWithHtmlparser2(html, pageUrl));
  return suggestCandidates(document.outline(), { pageUrl, baseUrl: document.baseUrl, ...options });
};

/** Every selector of a candidate, item, fields and pagination. */
const selectorsOf = (c: Candidate): string[] => {
  const source = c.source as {
    itemSelector: string;
    fields: Array<{ read: { selector?: string } }>;
    pagination: { selector?: string };
  };
  return [
    source.itemSelector,
    ...source.fields.flatMap((f) => f.read.selector ?? []),
    ...(source.pagination.selector ? [source.pagination.selector] : []),
  ];
};

/** A body POST /v1/datasets accepts: decodes and breaks no creation rule. */
const expectValidBody = (c: Candidate) => {
  const request = Schema.decodeUnknownSync(CreateDatasetRequest)({
    name: c.name,
    columns: c.columns,
    source: c.source,
  });
  expect(createDatasetProblems(request)).to.deep.equal([]);
};

const card = (i: number, generated: string) => `
  <div class="css-${generated}${i} product-card">
    <a class="product-link" href="/p/${i}"><h2 class="name">Kettle model ${i}</h2></a>
    <img class="photo" src="/img/${i}.jpg" alt="Kettle ${i}">
    <span class="price">€${(20 + i * 3).toFixed(2)}</span>
    <span class="stars rating-${(i % 5) + 1}">rated</span>
    <span class="stock">In stock</span>
    <span aria-label="Delivery time">${i + 1} days</span>
  </div>`;

const shop = (cards: number, extra = "") => `<!doctype html><html><head><title>Kettles | Shop</title></head><body>
  <header><nav><ul class="menu">${Array.from({ length: 12 }, (_, i) => `<li><a href="/c/${i}">Category ${i}</a></li>`).join("")}</ul></nav></header>
  <main><h1>Kettles</h1><div class="grid">${Array.from({ length: cards }, (_, i) => card(i, "x9f2a")).join("")}</div>
  ${extra}</main>
  <footer><ul>${Array.from({ length: 8 }, (_, i) => `<li><a href="/help/${i}">Help topic ${i}</a></li>`).join("")}</ul></footer>
</body></html>`;

describe("suggest: sources from a page's markup", () => {
  it("offers the main list's records, not the menu or the footer, with valid bodies and supported selectors only", () => {
    const candidates = suggest(shop(8));
    expect(candidates.length).to.be.within(1, 5);
    const [best] = candidates;
    expect((best!.source as { itemSelector: string }).itemSelector).to.equal("div.product-card");
    for (const c of candidates) {
      expectValidBody(c);
      for (const selector of selectorsOf(c)) expect(unsupportedSelectorPart(selector), selector).to.equal(null);
      // Positions are never used, and neither is a class a build tool made while a written one serves.
      for (const selector of selectorsOf(c)) expect(selector).to.not.match(/nth|css-/);
    }
    // The menu is offered after the records, saying where it sits.
    expect(
      candidates
        .slice(1)
        .map((c) => c.why)
        .join(" "),
    ).to.match(/inside (<nav>|\.menu)/);
  });

  it("reads each thing that varies: link, title, image, a typed price and a class-coded rating; the link is the key", () => {
    const [best] = suggest(shop(8));
    const columns = Object.fromEntries(best!.columns.map((c) => [c.name, c]));
    expect(columns.url).to.deep.include({ type: "string", key: true });
    expect(columns.price).to.deep.include({ type: "number", key: false });
    expect(Object.keys(columns)).to.include.members(["url", "title", "image", "rating", "price"]);
    // A label every record shares names the field; the values are its own.
    expect(columns.delivery_time).to.deep.include({ type: "number" });
    // "In stock" is the same in every record: nothing to collect.
    expect(Object.keys(columns)).to.not.include("stock");
    const fields = (best!.source as { fields: Array<{ name: string; read: Record<string, string> }> }).fields;
    expect(fields.find((f) => f.name === "rating")?.read).to.deep.equal({
      selector: "span.stars",
      kind: "attribute",
      attribute: "class",
    });
    expect(fields.find((f) => f.name === "url")?.read).to.deep.include({ kind: "attribute", attribute: "href" });
  });

  it("finds the next page by rel=next, by its words, or says there is none", () => {
    const pagination = (extra: string, head = "") =>
      (suggest(shop(6, extra).replace("</head>", `${head}</head>`))[0]!.source as { pagination: unknown }).pagination;
    expect(pagination('<a href="/p2" rel="next">2</a>')).to.deep.equal({
      kind: "next-link",
      selector: 'a[rel="next"]',
    });
    expect(pagination('<p class="pages"><a class="next-page" href="/p2">Next »</a></p>')).to.deep.equal({
      kind: "next-link",
      selector: "a.next-page",
    });
    expect(pagination("", '<link rel="next" href="/p2">')).to.deep.equal({
      kind: "next-link",
      selector: 'link[rel="next"]',
    });
    expect(pagination("")).to.deep.equal({ kind: "none" });
  });

  it("names a table's columns by its header and keys its rows by their link", () => {
    const rows = Array.from(
      { length: 6 },
      (_, i) =>
        `<tr><td class="city"><a href="/city/${i}">City ${i}</a></td><td class="pop">${(i + 1) * 1000}</td></tr>`,
    ).join("");
    const html = `<html><body><table><thead><tr><th>Name</th><th>Population</th></tr></thead><tbody>${rows}</tbody></table></body></html>`;
    const [best] = suggest(html);
    expectValidBody(best!);
    expect(best!.columns.map((c) => [c.name, c.type, c.key])).to.deep.include.members([
      ["url", "string", true],
      ["population", "number", false],
    ]);
  });

  it("maps the columns asked for onto what was found, and says which it could not find", () => {
    const [best] = suggest(shop(8), {
      columns: [
        { name: "cost", type: "number", description: "the price" },
        { name: "picture", type: "url" },
        { name: "warranty", type: "string" },
      ],
    });
    expectValidBody(best!);
    const names = best!.columns.map((c) => c.name);
    expect(names).to.include.members(["cost", "picture", "url"]);
    expect(best!.columns.find((c) => c.name === "picture")?.type).to.equal("string");
    expect(best!.why).to.contain("not found on the page: warranty");
  });

  it("offers nothing for a page without repeated records", () => {
    expect(suggest("<html><body><h1>About us</h1><p>We make kettles.</p></body></html>")).to.deep.equal([]);
  });
});
