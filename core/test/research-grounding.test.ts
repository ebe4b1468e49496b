import { expect } from "chai";
import * as Effect from "effect/Effect";
import { columnWords, groundCell, groundingText, nameKey } from "../src/engine/research/grounding.js";
import { entityKey, mergeCandidates } from "../src/engine/research/merge.js";
import { decimalSignOf } from "../src/engine/research/quantities.js";
import { validatePage, validationFailures } from "../src/engine/research/validate.js";
import type { DatasetColumn } from "../src/schema/column.js";
import type { FieldId } from "../src/schema/ids.js";
import type { ExtractionOutput } from "../src/schema/research.js";

const column = (name: string, type: DatasetColumn["type"]): DatasetColumn => ({
  id: `00000000-0000-4000-8000-00000000000${name.length}` as FieldId,
  label: name,
  ownership: "collected",
  name,
  type,
  key: false,
});
const city = column("city", "string");
const titles = column("titles", "number");
const columns = [city, titles];

describe("research grounding", () => {
  const page = groundingText(
    "Harbour\u00a0& Finch is based in\n  Bristol. The catalogue lists 1,200 titles. It is \u201cfamily-run\u201d.",
  );

  it("keeps a value whose quote is on the page (whitespace, NFKC and curly quotes normalised)", () => {
    expect(
      groundCell({ status: "found", value: "Bristol", quote: "based in Bristol." }, "string", page),
    ).to.deep.include({
      refusal: null,
      quote: "based in Bristol.",
    });
    expect(
      groundCell({ status: "found", value: "family-run", quote: 'It is "family-run"' }, "string", page).refusal,
    ).to.equal(null);
  });

  it("refuses a quote that is not on the page, and a value the quote does not contain", () => {
    const invented = groundCell({ status: "found", value: "Leeds", quote: "based in Leeds" }, "string", page);
    expect(invented.cell).to.deep.equal({ value: null, missingReason: "extraction_failed", raw: "Leeds" });
    expect(invented.refusal).to.equal("quote_not_on_page");
    const swapped = groundCell({ status: "found", value: "Leeds", quote: "based in Bristol." }, "string", page);
    expect(swapped.refusal).to.equal("value_not_in_quote");
  });

  it("compares numbers as numbers and converts them with the deterministic coercion", () => {
    const kept = groundCell({ status: "found", value: "1200", quote: "lists 1,200 titles" }, "number", page);
    expect(kept.cell.value).to.equal(1200);
    const wrong = groundCell({ status: "found", value: "1300", quote: "lists 1,200 titles" }, "number", page);
    expect(wrong.refusal).to.equal("value_not_in_quote");
  });

  it("reads numbers as people write them: scale words, currency, and a dot as a thousands separator", () => {
    const report = groundingText(
      "Revenue reached €2.3bn in 2025. The group employs 1.6 million people. Der Standort hat 5.000 Mitarbeiter. 40k users.",
    );
    const kept = (value: string, quote: string) => groundCell({ status: "found", value, quote }, "number", report);
    expect(kept("2300000000", "Revenue reached €2.3bn").cell.value).to.equal(2_300_000_000);
    expect(kept("€2.3bn", "Revenue reached €2.3bn").cell.value).to.equal(2_300_000_000);
    expect(kept("1.6 million", "employs 1.6 million people").cell.value).to.equal(1_600_000);
    expect(kept("1600000", "employs 1.6 million people").cell.value).to.equal(1_600_000);
    expect(kept("5000", "hat 5.000 Mitarbeiter").cell.value).to.equal(5000);
    expect(kept("40000", "40k users").cell.value).to.equal(40_000);
    // A number the quote does not say is still refused, however it is written.
    expect(kept("1.6", "employs 1.6 million people").refusal).to.equal("value_not_in_quote");
    expect(kept("2025000", "Revenue reached €2.3bn in 2025").refusal).to.equal("value_not_in_quote");
  });

  it("reads 5.000 and 5,5 by the page's language: 5000 and 5.5 in German, 1.500 is 1.5 in English", () => {
    expect(["de", "fr", "es", "it", "nl", "pt", "ru", "pl", "tr"].map(decimalSignOf)).to.deep.equal(Array(9).fill(","));
    expect(["en", "en-GB", "ja"].map(decimalSignOf)).to.deep.equal([".", ".", "."]);
    expect([null, "", "not a language tag"].map(decimalSignOf)).to.deep.equal([null, null, null]);
    const text = groundingText(
      "Die Nordwerk AG hat 5.000 Mitarbeiter und wuchs um 5,5 Prozent. A ratio of 1.500 held.",
    );
    const read = (value: string, quote: string, lang: string) =>
      groundCell({ status: "found", value, quote }, "number", text, [], decimalSignOf(lang));
    expect(read("5000", "hat 5.000 Mitarbeiter", "de").cell.value).to.equal(5000);
    // The model's own "5.000" on a German page is 5000 too, not 5.
    expect(read("5.000", "hat 5.000 Mitarbeiter", "de").cell.value).to.equal(5000);
    expect(read("5", "hat 5.000 Mitarbeiter", "de").refusal).to.equal("value_not_in_quote");
    expect(read("5.5", "wuchs um 5,5 Prozent", "de").cell.value).to.equal(5.5);
    expect(read("1.5", "A ratio of 1.500 held", "en").cell.value).to.equal(1.5);
    expect(read("1500", "A ratio of 1.500 held", "en").refusal).to.equal("value_not_in_quote");
    // The language reaches grounding through the page's validation.
    const output: ExtractionOutput = {
      rows: [
        {
          entity: { kind: "company", name: "Nordwerk AG", aliases: [] },
          cells: [{ column: "titles", status: "found", value: "5.000", quote: "hat 5.000 Mitarbeiter" }],
        },
      ],
    };
    const kept = (lang: string | null) =>
      validatePage("http://site/de", text, output, columns, 0, lang).candidates[0]?.cells.get(titles.id)?.cell.value;
    expect([kept("de"), kept("en")]).to.deep.equal([5000, 5]);
  });

  it("reads English number words as numbers", () => {
    const text = groundingText("Bramble Foods employs forty-two people. It sold two hundred and five thousand jars.");
    const kept = (value: string, quote: string) => groundCell({ status: "found", value, quote }, "number", text);
    expect(kept("42", "employs forty-two people").cell.value).to.equal(42);
    expect(kept("forty-two", "employs forty-two people").cell.value).to.equal(42);
    expect(kept("205000", "sold two hundred and five thousand jars").cell.value).to.equal(205_000);
    expect(kept("40", "employs forty-two people").refusal).to.equal("value_not_in_quote");
  });

  it("refuses a number the quote says about something else: another stands nearer the column's words", () => {
    const text = groundingText(
      "The Kiel yard hosts 2,100 of the company's 12,400 employees. Revenue rose 8% to €2.3bn in 2025. In 1952 it had 40 staff.",
    );
    const employees = columnWords({ name: "employees", label: "Employees" });
    const revenue = columnWords({ name: "revenue", label: "Revenue (EUR)" });
    const grounded = (value: string, quote: string, about: ReadonlyArray<string>) =>
      groundCell({ status: "found", value, quote }, "number", text, about);
    const quote = "hosts 2,100 of the company's 12,400 employees";
    expect(grounded("2100", quote, employees).refusal).to.equal("quote_not_about_value");
    expect(grounded("12400", quote, employees).cell.value).to.equal(12_400);
    // "employs" and "employees" are one word to the rule; a percentage does not compete with a sum.
    expect(grounded("2300000000", "Revenue rose 8% to €2.3bn in 2025", revenue).cell.value).to.equal(2_300_000_000);
    expect(grounded("2025", "Revenue rose 8% to €2.3bn in 2025", revenue).refusal).to.equal("quote_not_about_value");
    // A quote without the column's words cannot say which number is meant: either stands.
    expect(grounded("40", "In 1952 it had 40 staff", employees).cell.value).to.equal(40);
  });

  it("records 'not on this page' as not_found, not as a refusal", () => {
    const absent = groundCell({ status: "not_on_page", value: null, quote: null }, "string", page);
    expect(absent).to.deep.equal({
      cell: { value: null, missingReason: "not_found", raw: null },
      refusal: null,
      quote: null,
    });
  });

  it("compares names without case, diacritics, punctuation or extra whitespace", () => {
    expect(nameKey("  Lindqvist  FÖRLAG, Inc. ")).to.equal(nameKey("lindqvist forlag inc"));
    expect(nameKey("H&F Press")).to.equal("h f press");
  });
});

describe("research validation and merging", () => {
  const output = (rows: Array<[string, string[], string | null, string | null]>): ExtractionOutput => ({
    rows: rows.map(([name, aliases, cityValue, quote]) => ({
      entity: { kind: "company", name, aliases },
      cells: [{ column: "city", status: cityValue ? "found" : "not_on_page", value: cityValue, quote }],
    })),
  });
  const one = validatePage(
    "http://site/1",
    "Harbour & Finch Press (H&F Press) is based in Bristol. Kestrel Books is in Leeds.",
    output([
      ["Harbour & Finch Press", ["H&F Press", "HFP"], "Bristol", "based in Bristol"],
      ["Kestrel Books", [], "York", "Kestrel Books is in York"],
      ["Nobody Ltd", [], null, null],
    ]),
    columns,
  );
  const two = validatePage(
    "http://site/2",
    "H&F Press opened an office in Bath.",
    output([["H&F Press", [], "Bath", "an office in Bath"]]),
    columns,
  );

  it("reads at most 25 candidate rows of a page; the rest of an answer is cut, not validated", () => {
    const names = Array.from({ length: 30 }, (_, i) => `Press ${String.fromCharCode(65 + i)}`);
    const text = names.map((name) => `${name} is in Leeds.`).join(" ");
    const many = validatePage(
      "http://site/3",
      text,
      output(names.map((name) => [name, [], "Leeds", `${name} is in Leeds`])),
      columns,
    );
    expect(many.candidateRows).to.equal(25);
    expect(many.candidates.map((c) => c.name)).to.deep.equal(names.slice(0, 25));
  });

  it("rejects a candidate whose name is not on the page, and drops aliases the page does not give", () => {
    expect(one.candidateRows).to.equal(3);
    expect(one.rejectedNames).to.have.length(1);
    expect(one.candidates.map((c) => c.name)).to.deep.equal(["Harbour & Finch Press", "Kestrel Books"]);
    expect(one.candidates[0]?.aliases).to.deep.equal(["H&F Press"]);
    expect(one.refusals).to.deep.equal([
      {
        entity: "Kestrel Books",
        fieldId: city.id,
        column: "city",
        code: "quote_not_on_page",
        value: "York",
        quote: "Kestrel Books is in York",
      },
    ]);
  });

  it("merges one entity seen under two names, keeps the best-supported value and records the conflict", async () => {
    const entities = await Effect.runPromise(
      mergeCandidates([...one.candidates, ...two.candidates], [city.id, titles.id]),
    );
    expect(entities).to.have.length(2);
    const harbour = entities[0];
    expect(harbour?.identity.anchor).to.equal("Harbour & Finch Press");
    expect(harbour?.identity.aliases).to.deep.equal(["Harbour & Finch Press", "H&F Press"]);
    expect(harbour?.identity.key).to.equal(await Effect.runPromise(entityKey("company", "harbour & finch PRESS")));
    expect(harbour?.record.cells.get(city.id)?.value).to.equal("Bristol");
    expect(harbour?.fact.entity?.conflicts).to.deep.equal([
      {
        fieldId: city.id,
        values: ["Bristol", "Bath"],
        choices: [
          { value: "Bristol", pageUrl: "http://site/1", quote: "based in Bristol", written: true },
          { value: "Bath", pageUrl: "http://site/2", quote: "an office in Bath", written: false },
        ],
      },
    ]);
    expect(harbour?.record.cellSources?.get(city.id)).to.deep.equal({ pageUrl: "http://site/1", entryId: "0:city" });
    expect(entities[1]?.record.cells.get(city.id)?.missingReason).to.equal("extraction_failed");
  });

  it("refuses a real quote about something else: it must name the entity or share its block", () => {
    const text = [
      "SAP SE is a software company based in Walldorf.",
      "Oracle Corporation is based in Austin.",
      "The Walldorf campus hosts 5,000 of the company's 86,000 employees.",
      "Employees | SAP SE | 107,000",
    ].join("\n");
    const answer = (value: string, quote: string): ExtractionOutput => ({
      rows: [
        {
          entity: { kind: "company", name: "SAP SE", aliases: [] },
          cells: [{ column: "titles", status: "found", value, quote }],
        },
        { entity: { kind: "company", name: "Oracle Corporation", aliases: [] }, cells: [] },
      ],
    });
    const about = (value: string, quote: string) => {
      const validation = validatePage("http://site/sap", text, answer(value, quote), columns);
      return {
        kept: validation.candidates[0]?.cells.get(titles.id)?.cell.value ?? null,
        refusals: validation.refusals,
      };
    };
    // On the page, but about a campus in a paragraph that names no company.
    expect(about("5000", "hosts 5,000 of the company's 86,000 employees")).to.deep.equal({
      kept: null,
      refusals: [
        {
          entity: "SAP SE",
          fieldId: titles.id,
          column: "titles",
          code: "quote_not_about_entity",
          value: "5000",
          quote: "hosts 5,000 of the company's 86,000 employees",
        },
      ],
    });
    // The diagnosis a person reads names the column, never its field id.
    const [refused] = validationFailures(
      "http://site/sap",
      validatePage("http://site/sap", text, answer("5000", "hosts 5,000 of the company's 86,000 employees"), columns),
    );
    expect(refused?.detail).to.contain("SAP SE: the value of titles was refused").and.not.contain(titles.id);
    // In the same table row as the name: kept.
    expect(about("107000", "107,000").kept).to.equal(107_000);
  });

  it("merges names across legal forms and keeps every name as an alias; different companies stay apart", async () => {
    const page = (url: string, text: string, name: string, aliases: string[] = []) =>
      validatePage(url, text, output([[name, aliases, null, null]]), columns).candidates;
    const candidates = [
      ...page("http://site/a", "Apple Inc. reported results.", "Apple Inc."),
      ...page("http://site/b", "Apple opened a store.", "Apple"),
      ...page("http://site/c", "Siemens AG is based in Munich.", "Siemens AG"),
      ...page("http://site/d", "The Siemens plant in Berlin.", "Siemens"),
      ...page("http://site/e", "Apple Records Ltd released an album.", "Apple Records Ltd"),
      ...page(
        "http://site/f",
        "International Business Machines Corporation (IBM) makes mainframes.",
        "International Business Machines Corporation",
        ["IBM"],
      ),
      ...page("http://site/g", "IBM announced a chip.", "IBM"),
    ];
    const entities = await Effect.runPromise(mergeCandidates(candidates, [city.id]));
    const aliases = entities.map((e) => [...e.identity.aliases].sort());
    expect(aliases).to.have.deep.members([
      ["Apple", "Apple Inc."],
      ["Siemens", "Siemens AG"],
      ["Apple Records Ltd"],
      ["IBM", "International Business Machines Corporation"],
    ]);
  });

  it("takes no alias the page merely mentions: Oracle competing with IBM is not merged into IBM", async () => {
    const oracle = validatePage(
      "http://site/o",
      "Oracle Corporation competes with IBM in databases.",
      output([["Oracle Corporation", ["IBM"], null, null]]),
      columns,
    ).candidates;
    expect(oracle[0]?.aliases).to.deep.equal([]);
    const ibm = validatePage("http://site/i", "IBM announced a chip.", output([["IBM", [], null, null]]), columns);
    const entities = await Effect.runPromise(mergeCandidates([...oracle, ...ibm.candidates], [city.id]));
    expect(entities.map((e) => e.identity.aliases)).to.have.deep.members([["Oracle Corporation"], ["IBM"]]);
  });

  it("takes an alias the page ties to the name: in parentheses after it, short for, known as, trading as", () => {
    const ibm = "International Business Machines Corporation";
    const aliasesOn = (text: string, name: string, aliases: string[]) =>
      validatePage("http://site/t", text, output([[name, aliases, null, null]]), columns).candidates[0]?.aliases;
    expect(aliasesOn(`${ibm} (IBM) makes mainframes.`, ibm, ["IBM"])).to.deep.equal(["IBM"]);
    expect(aliasesOn(`IBM, short for ${ibm}, makes mainframes.`, ibm, ["IBM"])).to.deep.equal(["IBM"]);
    expect(
      aliasesOn("Harbour & Finch Press, often shortened to H&F Press, is in Bristol.", "H&F Press", [
        "Harbour & Finch Press",
      ]),
    ).to.deep.equal(["Harbour & Finch Press"]);
    expect(aliasesOn(`IBM, also known as Big Blue, makes mainframes.`, "IBM", ["Big Blue"])).to.deep.equal([
      "Big Blue",
    ]);
    expect(
      aliasesOn("Kestrel Marine Ltd trading as KM Shipping is in Cork.", "Kestrel Marine", ["KM Shipping"]),
    ).to.deep.equal(["KM Shipping"]);
    // A legal-form variant of the name needs no tie; a parenthesis elsewhere on the page is none.
    expect(aliasesOn("Apple Inc. reported results. Apple opened a store.", "Apple Inc.", ["Apple"])).to.deep.equal([
      "Apple",
    ]);
    expect(aliasesOn(`${ibm} sells servers (IBM is a rival of Oracle).`, ibm, ["IBM"])).to.deep.equal([]);
  });

  it("gives the same keys when the same pages are merged again in another order", async () => {
    const three = validatePage(
      "http://site/3",
      "Kestrel Books opened a shop.",
      output([["Kestrel Books", [], null, null]]),
      columns,
    );
    const keysOf = async (pages: ReadonlyArray<typeof one>) =>
      (
        await Effect.runPromise(
          mergeCandidates(
            pages.flatMap((p) => p.candidates),
            [city.id],
          ),
        )
      )
        .map((e) => [e.identity.anchor, e.identity.key])
        .sort();
    const first = await keysOf([one, two, three]);
    // "H&F Press" read first, as a search engine may order the results next time: the same keys.
    expect(await keysOf([two, three, one])).to.deep.equal(first);
    expect(await keysOf([three, one, two])).to.deep.equal(first);
    expect(first.map(([anchor]) => anchor)).to.deep.equal(["Harbour & Finch Press", "Kestrel Books"]);
    expect(first[0]?.[1]).to.match(/^entity:[0-9a-f]{64}$/);
  });

  it("writes the value most pages support: a page giving a value twice counts once", async () => {
    const page = (url: string, value: string, times: number) =>
      validatePage(
        url,
        `Harbour & Finch Press is based in ${value}.`,
        output(Array.from({ length: times }, () => ["Harbour & Finch Press", [], value, `based in ${value}`])),
        columns,
      ).candidates;
    const candidates = [
      ...page("http://site/a", "Bath", 3),
      ...page("http://site/b", "Bristol", 1),
      ...page("http://site/c", "Bristol", 1),
    ];
    const [harbour] = await Effect.runPromise(mergeCandidates(candidates, [city.id]));
    expect(harbour?.record.cells.get(city.id)?.value).to.equal("Bristol");
    // Each value is listed once per page that gave it.
    expect(harbour?.fact.entity?.conflicts[0]?.choices?.map((c) => [c.pageUrl, c.value, c.written])).to.deep.equal([
      ["http://site/a", "Bath", false],
      ["http://site/b", "Bristol", true],
      ["http://site/c", "Bristol", true],
    ]);
  });
});
