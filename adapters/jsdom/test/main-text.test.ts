import { readdirSync, readFileSync } from "node:fs";
import { decodeHtml } from "@gleaner/core";
import { expect } from "chai";
import * as Effect from "effect/Effect";
import { describe, it } from "mocha";
import { readMainText } from "../src/index.js";

/** bench/suggest's real listing pages, each with its records (bench/suggest/corpus/README.md says whence). */
const corpus = new URL("../../../bench/suggest/corpus/", import.meta.url);

const page = `<!doctype html><html><head><title>Northwind Books — Publishers</title>
<script>window.tracking = "Penguin Random House secret";</script><style>.x{color:red}</style></head>
<body>
<nav><a href="/">Home</a> <a href="/about">About us</a> <a href="/contact">Contact</a></nav>
<header><p>Sign up for our newsletter today!</p></header>
<main><article>
<h1>Publishers in the catalogue</h1>
<p>Harbour &amp; Finch Press is based in Bristol, England. The catalogue lists 14 titles from Harbour &amp; Finch Press,
   most of them poetry collections published since 2001.</p>
<p>Lindqvist Förlag, a family publisher in Göteborg, Sweden, has 9 titles in the catalogue, mainly crime fiction.</p>
</article></main>
<footer><p>© 2026 Northwind Books. All rights reserved.</p></footer>
</body></html>`;

describe("@gleaner/jsdom main text (Readability)", () => {
  it("keeps the article's text and title, and drops scripts, navigation and boilerplate", async () => {
    const main = await Effect.runPromise(readMainText(page, "http://127.0.0.1/publishers"));
    expect(main.title).to.contain("Publishers");
    expect(main.text).to.contain("Harbour & Finch Press is based in Bristol, England.");
    expect(main.text).to.contain("Lindqvist Förlag, a family publisher in Göteborg, Sweden, has 9 titles");
    expect(main.text).not.to.contain("secret");
    expect(main.text).not.to.contain("color:red");
    expect(main.text).not.to.contain("About us");
    expect(main.text).not.to.contain("All rights reserved");
  });

  it("keeps blocks and table cells apart in minified markup: a fact box reads as rows, not one word", async () => {
    const minified =
      "<html><head><title>SAP SE</title></head><body><main><article><h1>SAP SE</h1><p>SAP is a software company based in Germany, one of the largest in Europe and the world, with products for enterprise resource planning.</p>" +
      "<table><tr><th>Founded</th><td>1972</td></tr><tr><th>Headquarters</th><td>Walldorf</td></tr></table>" +
      "<ul><li>Software</li><li>Cloud</li></ul><p>First line<br>second line</p>" +
      "<p>A paragraph written\nover two source lines.</p></article></main></body></html>";
    const main = await Effect.runPromise(readMainText(minified, "http://127.0.0.1/sap"));
    const lines = main.text.split("\n");
    expect(lines).to.include.members([
      "Founded | 1972",
      "Headquarters | Walldorf",
      "Software",
      "Cloud",
      "First line\u2028second line",
    ]);
    expect(main.text).to.not.contain("Founded1972");
  });

  it("keeps a definition list's term and its descriptions on one line, as a table row's cells", async () => {
    const html =
      "<html><body><main><article><h1>Small museums</h1><p>Small museums worth the trip, each with a short note from the guide.</p>" +
      "<dl><dt>Lantern House</dt><dd>Opened 1958 in Hull.</dd><dd>Free entry.</dd><dt>Quay Gallery</dt><dd>Opened 1921.</dd></dl>" +
      "</article></main></body></html>";
    const lines = (await Effect.runPromise(readMainText(html, "http://127.0.0.1/guide"))).text.split("\n");
    expect(lines).to.include.members([
      "Lantern House | Opened 1958 in Hull. | Free entry.",
      "Quay Gallery | Opened 1921.",
    ]);
  });

  it("keeps a block's <br> lines on its one line (U+2028), and marks headings by level, escaping a page's own #", async () => {
    const html =
      "<html><body><main><article><h1>Museums of the coast</h1><p>Every museum on the coast, with the year it opened and its visitors.</p>" +
      "<div class=card><b>Lantern House</b><br>Opened: 1958<br> Visitors: 12 000</div>" +
      "<h2>Harbour Museum</h2><table><tr><th>Opened</th><td>1897</td></tr></table>" +
      "<h3>Collections <br></h3><p># of ships in bottles: 40</p><h2></h2></article></main></body></html>";
    const lines = (await Effect.runPromise(readMainText(html, "http://127.0.0.1/museums"))).text.split("\n");
    expect(lines).to.include.members([
      "Lantern House\u2028Opened: 1958\u2028Visitors: 12 000",
      "## Harbour Museum",
      "Opened | 1897",
      "### Collections",
      "\\# of ships in bottles: 40",
    ]);
    expect(lines.filter((l) => /^#+ ?$/.test(l))).to.deep.equal([]);
  });

  it("reads a page of fact tables under headings, which Readability takes for its footer, as its tables", async () => {
    const facts = (name: string, opened: number) =>
      `<h2>${name}</h2><table><tr><th>Opened</th><td>${opened}</td></tr><tr><th>City</th><td>Hull</td></tr></table>`;
    const html = `<html><head><title>Museums compared</title></head><body><header><nav><a href="/">Home</a></nav></header>
<main><h1>Coastal museums compared</h1>${facts("Saltworks Museum", 1901)}${facts("Lantern House", 1958)}</main>
<footer><p>Copyright 2026, the Coastal Museums Trust. All rights reserved, including the right to reproduce this page, its text and its tables, in whole or in part.</p>
<p>Contact the trust office, open Monday to Friday, nine to five, except on public holidays.</p></footer></body></html>`;
    const lines = (await Effect.runPromise(readMainText(html, "http://127.0.0.1/compared"))).text.split("\n");
    expect(lines).to.include.members(["## Saltworks Museum", "Opened | 1901", "## Lantern House", "Opened | 1958"]);
    expect(lines.join("\n")).not.to.contain("All rights reserved");
  });

  it("keeps every record of bench/suggest's real listing pages, where Readability kept a fragment of some", async () => {
    const text = (value: string) => value.replace(/\s+/g, " ").trim().toLowerCase();
    let pages = 0;
    for (const slug of readdirSync(corpus).filter((name) => !name.includes("."))) {
      const truth = JSON.parse(readFileSync(new URL(`${slug}/truth.json`, corpus), "utf8"));
      const keys = truth.records.map((record: Record<string, string>) => text(record[truth.key] ?? ""));
      // A page whose records are named by their links has no text to look for.
      if (keys.some((key: string) => key.startsWith("/") || key.startsWith("http"))) continue;
      pages++;
      // Saved as UTF-8 whatever their <meta> says, and served so by bench:suggest.
      const html = decodeHtml(readFileSync(new URL(`${slug}/page.html`, corpus)), "text/html; charset=utf-8");
      const main = text((await Effect.runPromise(readMainText(html, "http://127.0.0.1/"))).text);
      expect(
        keys.filter((key: string) => !main.includes(key)),
        slug,
      ).to.deep.equal([]);
    }
    expect(pages).to.equal(21);
  });

  it("reads a page without an article (no markup at all) as its text", async () => {
    const main = await Effect.runPromise(readMainText("<p>Only one line here.</p>", "http://127.0.0.1/x"));
    expect(main.text).to.equal("Only one line here.");
  });

  it("says the page's language (html lang, else its content-language), null when it declares none", async () => {
    const read = (html: string) => Effect.runPromise(readMainText(html, "http://127.0.0.1/x"));
    expect(
      (await read(`<html lang="de-DE"><body><p>Die Nordwerk AG hat 5.000 Mitarbeiter.</p></body></html>`)).lang,
    ).to.equal("de-DE");
    const meta = `<html><head><meta http-equiv="Content-Language" content="fr, en"></head><body><p>Texte.</p></body></html>`;
    expect((await read(meta)).lang).to.equal("fr");
    expect((await read("<p>No language.</p>")).lang).to.equal(null);
  });
});
