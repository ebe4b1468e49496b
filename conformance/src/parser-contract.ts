/**
 * The DocumentParser contract every parser adapter adopts (`parserContract("mine", MyParser)` in its
 * tests): selection in the CSS subset, text, attributes, excerpts and URL resolution, on the real
 * books.toscrape.com listing page.
 */
import { DOCUMENT_MAX_DEPTH, DOCUMENT_MAX_ELEMENTS, DocumentParser, type ParsedDocument } from "@gleaner/core";
import { expect } from "chai";
import * as Effect from "effect/Effect";
import * as ManagedRuntime from "effect/ManagedRuntime";
import { after, before, describe, it } from "./runner.js";
import { readFileSync } from "node:fs";
import type { UnderTest } from "./context.js";

const booksPage = readFileSync(new URL("../fixtures/books/index.html", import.meta.url), "utf8");
const pageUrl = "http://books.local:8080/index.html";

/** The suite's shape: a name and the DocumentParser layer factory (built once). */
export type ParserUnderTest = UnderTest<DocumentParser>;

export const parserContract = (subject: ParserUnderTest) =>
  describe(`${subject.name}: DocumentParser contract`, () => {
    const runtime = ManagedRuntime.make(subject.layer());
    let parser: DocumentParser["Type"];
    let doc: ParsedDocument;
    const parse = (html: string, url = pageUrl) => Effect.runSync(parser.parse(html, url));
    before(async () => {
      parser = await runtime.runPromise(DocumentParser);
      doc = parse(booksPage);
    });
    after(async () => {
      doc.dispose();
      await runtime.dispose();
    });

    it("selects the 20 books of the listing, in document order", () => {
      const items = doc.root.select("article.product_pod");
      expect(items).to.have.length(20);
      expect(items[0]?.select("h3 > a")[0]?.attribute("title")).to.equal("A Light in the Attic");
      expect(items[19]?.select("h3 > a")[0]?.attribute("title")).to.equal("It's Only the Himalayas");
    });

    it("text is whitespace-normalised textContent", () => {
      const first = doc.root.select("article.product_pod")[0];
      expect(first?.select("p.price_color")[0]?.text()).to.equal("£51.77");
      expect(first?.select("p.instock.availability")[0]?.text()).to.equal("In stock");
      expect(doc.root.select("li.current")[0]?.text()).to.equal("Page 1 of 50");
    });

    it("reads attributes, null when absent; classes by attribute selector too", () => {
      const rating = doc.root.select("article.product_pod p.star-rating")[0];
      expect(rating?.attribute("class")).to.equal("star-rating Three");
      expect(rating?.attribute("data-missing")).to.equal(null);
      expect(doc.root.select('a[href="catalogue/page-2.html"]')).to.have.length(1);
    });

    it("selectors inside a container match only within it (no ancestor outside counts)", () => {
      const item = doc.root.select("article.product_pod")[0];
      expect(item?.select("section h3")).to.have.length(0);
      expect(item?.select("div p")).to.have.length(2);
      expect(item?.select("h3 a")).to.have.length(1);
    });

    it('the container never stands for a selector\'s first part ("article p" asked on an <article> finds nothing)', () => {
      const item = doc.root.select("article.product_pod")[0];
      expect(item?.select("article p")).to.have.length(0);
      expect(item?.select("article")).to.have.length(0);
      expect(item?.first("article.product_pod h3")).to.equal(null);
      // Its own parts still match, and a nested element of its kind would.
      expect(item?.select("p")).to.have.length(3);
      const nested = parse("<div class='x'><div class='x'><p>in</p></div></div>");
      const outer = nested.root.select("div.x")[0];
      expect(outer?.select("div.x p").map((p) => p.text())).to.deep.equal(["in"]);
      nested.dispose();
    });

    it("outlines the document as plain data: elements and text in order, comments out, templates empty", () => {
      const page = parse(
        "<html><head><title>T</title></head><body><!-- note --><p class='a b' data-x='1'>one <b>two</b> three</p><template><p>never</p></template></body></html>",
      );
      const outline = page.outline();
      expect(outline.tag).to.equal("#document");
      const html = outline.children.find((c) => typeof c !== "string" && c.tag === "html");
      const body =
        typeof html === "string" ? undefined : html?.children.find((c) => typeof c !== "string" && c.tag === "body");
      const elements = typeof body === "string" || !body ? [] : body.children.filter((c) => typeof c !== "string");
      expect(elements.map((e) => (typeof e === "string" ? e : e.tag))).to.deep.equal(["p", "template"]);
      const p = elements[0];
      if (typeof p === "string" || !p) throw new Error("no <p>");
      expect(p.attributes).to.deep.equal({ class: "a b", "data-x": "1" });
      expect(p.children.map((c) => (typeof c === "string" ? c : `<${c.tag}>`))).to.deep.equal([
        "one ",
        "<b>",
        " three",
      ]);
      const template = elements[1];
      expect(typeof template === "string" ? null : template?.children).to.deep.equal([]);
      page.dispose();
    });

    it("first is the first element select finds, within the container, or null", () => {
      const items = doc.root.select("article.product_pod");
      for (const item of items) {
        for (const selector of ["div p", "p", "h3 > a", "p.price_color", "section h3", "div + h3", "h3 ~ div p"]) {
          expect(item.first(selector)?.excerpt(100_000).text ?? null, selector).to.equal(
            item.select(selector)[0]?.excerpt(100_000).text ?? null,
          );
        }
      }
      expect(items[0]?.first("div p")?.attribute("class")).to.equal("price_color");
      expect(items[0]?.first("section h3")).to.equal(null);
      expect(doc.root.first("li.current")?.text()).to.equal("Page 1 of 50");
      expect(doc.root.first("li.missing")).to.equal(null);
    });

    it("resolves relative links against the page URL, or its <base href>", () => {
      const next = doc.root.select("ul.pager li.next a")[0]?.attribute("href") ?? "";
      expect(doc.resolveUrl(next)).to.equal("http://books.local:8080/catalogue/page-2.html");
      const based = parse(
        '<html><head><base href="/shop/"></head><body><a href="p2.html">n</a></body></html>',
        "http://x.test/a/b.html",
      );
      expect(based.baseUrl).to.equal("http://x.test/shop/");
      expect(based.resolveUrl("p2.html")).to.equal("http://x.test/shop/p2.html");
      expect(based.resolveUrl("http://[bad")).to.equal(null);
      based.dispose();
    });

    it("excerpts are the element's HTML, at most maxBytes UTF-8 bytes, flagged when cut", () => {
      const item = doc.root.select("article.product_pod")[0];
      const whole = item?.excerpt(100_000);
      expect(whole?.truncated).to.equal(false);
      expect(whole?.text)
        .to.match(/^<article class="product_pod">/)
        .and.contain("£51.77");
      const cut = doc.root.excerpt(2048);
      expect(cut.truncated).to.equal(true);
      expect(Buffer.byteLength(cut.text)).to.be.at.most(2048);
    });

    it("excerpts keep one line break for the indentation around tags; text, attributes and <pre> as written", () => {
      const page = parse(
        '<html><body><ul>\n  <li class="r">\n\n      <b>A\u00a0 1</b>  <i>x</i>\n  </li>\n' +
          '<li class="r"><pre>  a\n\n    b</pre></li>\n' +
          '<li class="r" title="line one\n      line two">\n  two\n      lines\n</li></ul></body></html>',
      );
      const [plain, pre, inside] = page.root.select("li.r");
      expect(plain?.excerpt(2048).text).to.equal('<li class="r">\n<b>A&nbsp; 1</b>  <i>x</i>\n</li>');
      expect(pre?.excerpt(2048).text).to.equal('<li class="r"><pre>  a\n\n    b</pre></li>');
      expect(inside?.excerpt(2048).text).to.equal(
        '<li class="r" title="line one\n      line two">\ntwo\n      lines\n</li>',
      );
      page.dispose();
    });

    it("never runs scripts", () => {
      const scripted = parse(
        '<html><body><p id="t">before</p><script>document.getElementById("t").textContent = "after"</script></body></html>',
      );
      expect(scripted.root.select("p#t")[0]?.text()).to.equal("before");
      scripted.dispose();
    });

    it("fails with ParseFailed for an unusable page URL", () => {
      const result = Effect.runSync(Effect.either(parser.parse("<p>x</p>", "not a url")));
      expect(result._tag).to.equal("Left");
    });

    it("refuses a page nested deeper than the document limit with limit_exceeded, quickly", () => {
      // 200,000 levels took htmlparser2 + css-select a minute on the thread serving the API.
      const depth = 200_000;
      const html = `<html><body>${"<div>".repeat(depth)}x${"</div>".repeat(depth)}</body></html>`;
      const result = Effect.runSync(Effect.either(parser.parse(html, pageUrl)));
      expect(result._tag).to.equal("Left");
      if (result._tag === "Left") {
        expect(result.left.reason).to.equal("limit_exceeded");
        expect(result.left.message).to.contain(`more than ${DOCUMENT_MAX_DEPTH} levels deep`);
      }
    });

    it("refuses a page whose elements' depths add up past the document limit", () => {
      // 400 chains 200 deep: 80,400 elements, each depth allowed, but 8 million ancestor links.
      const chains = `${"<div>".repeat(200)}${"</div>".repeat(200)}`.repeat(400);
      const result = Effect.runSync(Effect.either(parser.parse(`<html><body>${chains}</body></html>`, pageUrl)));
      expect(result._tag === "Left" && result.left.message).to.contain("too deeply overall");
    });

    it("refuses a page with more elements than the document limit, and parses one at the limits", () => {
      const flat = `<html><body>${"<i></i>".repeat(DOCUMENT_MAX_ELEMENTS)}</body></html>`;
      const result = Effect.runSync(Effect.either(parser.parse(flat, pageUrl)));
      expect(result._tag === "Left" && result.left.reason).to.equal("limit_exceeded");
      const deep = DOCUMENT_MAX_DEPTH - 3; // html, body and the p inside count too
      const fits = parse(`<html><body>${"<div>".repeat(deep)}<p>x</p>${"</div>".repeat(deep)}</body></html>`);
      expect(fits.root.select("div p")).to.have.length(1);
      fits.dispose();
    });
  });
