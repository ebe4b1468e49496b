import { createHash } from "node:crypto";
import { parseWithHtmlparser2 } from "@gleaner/htmlparser2";
import { expect } from "chai";
import * as Effect from "effect/Effect";
import * as Schema from "effect/Schema";
import { type DatasetColumn, extractPage, Source } from "../../src/index.js";
import { nextUrl } from "../../src/engine/read-page.js";
import { extractionRulesVersion, toStoredExtraction } from "../../src/engine/reuse.js";

/**
 * extractionRulesVersion guards reuse (decision 0042): an extraction kept under one version is only
 * reused under that version. Should extraction, coercion or pagination start to read a page
 * differently without the version moving, a dataset's next run would reuse stale extractions. So
 * this test reads a corpus of pages that exercises every read kind, column type, missing value and
 * pagination kind, and holds the digest of what they yield to the one recorded for the version.
 */
// Only the current version's digest is kept: an earlier one was of the corpus as it was then (git has it).
const fingerprints: Record<number, string> = {
  3: "18bb73c4708a4b0bc76729bc038e854bb8cf024437cdac3d48cf6ccdb1ecf083",
};

const column = (id: string, name: string, type: DatasetColumn["type"], key = false) =>
  ({ id, name, type, key, label: name, ownership: "collected" }) as unknown as DatasetColumn;
const columns = [
  column("f-link", "link", "url", true),
  column("f-title", "title", "string"),
  column("f-price", "price", "number"),
  column("f-stock", "stock", "boolean"),
  column("f-date", "date", "date"),
  column("f-tag", "tag", "string"),
];
const fields = [
  { name: "link", read: { selector: "a", kind: "attribute", attribute: "href" } },
  { name: "title", read: { selector: "h3" } },
  { name: "price", read: { selector: ".price" } },
  { name: "stock", read: { selector: ".stock", kind: "attribute", attribute: "data-in-stock" } },
  { name: "date", read: { selector: "time", kind: "attribute", attribute: "datetime" } },
  { name: "tag", read: {} },
];
// Decoded as a dataset's source is, so every default a stored source carries is there.
const source = (pagination: unknown): Source =>
  Schema.decodeUnknownSync(Source)({
    version: 1,
    url: "https://shop.example/list",
    itemSelector: "li.item",
    fields,
    identity: { kind: "source-key", field: "link" },
    pagination,
  });

const item = (n: number, price: string, extra = "") =>
  `<li class="item" data-n="${n}"><a href="/p/${n}?ref=list#top">  Item\n ${n} </a><h3>Item &amp; ${n}</h3>` +
  `<span class="price">${price}</span><span class="stock" data-in-stock="${n % 2 ? "yes" : "no"}"></span>` +
  `<time datetime="2026-0${(n % 9) + 1}-1${n % 10}">x</time>${extra}</li>`;
const corpus: ReadonlyArray<readonly [string, string, unknown]> = [
  [
    "https://shop.example/list",
    `<html><body><ul>${item(1, "£1,234.50")}${item(2, "1.234,50 €")}${item(3, "(12)")}${item(4, "")}` +
      `${item(5, "free", "<script>x</script>")}<li class="item"><p>no link</p></li></ul>` +
      `<a class="next" href="?page=2">next</a></body></html>`,
    { kind: "next-link", selector: "a.next" },
  ],
  [
    "https://shop.example/list?page=2",
    `<html><head><base href="https://cdn.example/x/"></head><body><ul>${item(6, "−7.5")}${item(7, "1e3")}</ul>` +
      `<span class="last"></span></body></html>`,
    { kind: "url-pattern", pattern: "https://shop.example/list?page={page}", startPage: 1, endSelector: "span.last" },
  ],
  [
    "https://shop.example/one",
    // Indented markup inside an item: its evidence excerpt is part of what a page yields.
    `<html><body><ul>${item(8, " 42 ")}${item(8, "43")}${item(9, "5", "\n    <em>\n      new\n    </em>\n  ")}</ul></body></html>`,
    { kind: "none" },
  ],
];

const fingerprint = Effect.gen(function* () {
  const outputs: unknown[] = [];
  for (const [url, html, pagination] of corpus) {
    const document = yield* parseWithHtmlparser2(html, url);
    const s = source(pagination);
    const extracted = extractPage(document, url, s, columns, 1000);
    outputs.push(toStoredExtraction(extracted, nextUrl(s, document, document.resolveUrl, 0)));
    document.dispose();
  }
  return createHash("sha256").update(JSON.stringify(outputs)).digest("hex");
});

describe("extractionRulesVersion", () => {
  it("moves whenever what extraction, coercion or pagination make of a page changes", async () => {
    const digest = await Effect.runPromise(fingerprint);
    expect(
      fingerprints[extractionRulesVersion],
      `What pages yield changed (digest ${digest}): bump extractionRulesVersion in core/src/engine/reuse.ts, ` +
        "so kept extractions are parsed again, and record the digest for the new version here.",
    ).to.equal(digest);
  });
});
