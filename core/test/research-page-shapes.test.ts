import { expect } from "chai";
import { groundCell, groundingText } from "../src/engine/research/grounding.js";
import { quantitiesIn } from "../src/engine/research/quantities.js";
import { validatePage } from "../src/engine/research/validate.js";
import type { DatasetColumn } from "../src/schema/column.js";
import type { FieldId } from "../src/schema/ids.js";
import type { ExtractionOutput } from "../src/schema/research.js";

/** Grounding over the shapes real pages write their facts in, beyond plain English sentences. */

const column = (name: string, type: DatasetColumn["type"], n: number): DatasetColumn => ({
  id: `00000000-0000-4000-8000-00000000010${n}` as FieldId,
  label: name,
  ownership: "collected",
  name,
  type,
  key: false,
});
const visitors = column("visitors", "number", 1);
const opened = column("opened", "number", 2);
const city = column("city", "string", 3);

const ground = (value: string, quote: string, text: string, about: string[] = [], lang: string | null = null) =>
  groundCell(
    { status: "found", value, quote },
    "number",
    groundingText(text),
    about,
    lang === null ? null : lang.startsWith("en") ? "." : ",",
  );

describe("research grounding over the shapes pages write", () => {
  it("reads a number grouped by spaces, no-break, thin or narrow spaces or apostrophes as one number", () => {
    for (const written of ["12 500", "12\u00a0500", "12\u2009500", "12\u202f500", "12'500", "12\u2019500"]) {
      const text = `The museum had ${written} visitors last year.`;
      expect(ground("12500", `had ${written} visitors`, text).cell.value, written).to.equal(12_500);
      expect(ground(written, `had ${written} visitors`, text, [], "fr").cell.value, written).to.equal(12_500);
    }
    expect(quantitiesIn("1 234 567,5 €", ",")).to.deep.equal([1_234_567.5]);
    // A year before a grouped number stays a year; a lone short number after a year is not glued to it.
    expect(quantitiesIn("In 2019 12 500 people came")).to.deep.equal([2019, 12_500]);
    expect(quantitiesIn("In 2019 250 people came")).to.deep.equal([2019, 250]);
  });

  it("keeps a year from a written date: the day of the month does not compete with it", () => {
    const text = "The museum was opened on 12 March 1897. Le musée a ouvert le 3 mai 1901. Eröffnet am 01.04.1903.";
    const about = ["opene"];
    expect(ground("1897", "was opened on 12 March 1897", text, about).cell.value).to.equal(1897);
    expect(ground("1901", "ouvert le 3 mai 1901", text, ["ouver"]).cell.value).to.equal(1901);
    expect(ground("1903", "Eröffnet am 01.04.1903", text, ["eröff"], "de").cell.value).to.equal(1903);
    // A date does not hide a number the quote says beside it.
    expect(quantitiesIn("On 12 March 1897, 4,000 people came")).to.include(4000);
  });

  it("matches a quote whatever dashes, quote marks, soft hyphens or zero-width spaces the page writes", () => {
    const page = groundingText(
      "Open 1990\u20132001 as the \u201eStadtmuseum\u201c, \u00abMus\u00e9e\u00bb, Kunst\u00adhalle\u200b Nord \u2014 free entry.",
    );
    const cell = (value: string, quote: string) => groundCell({ status: "found", value, quote }, "string", page);
    expect(cell("1990-2001", "Open 1990-2001").refusal).to.equal(null);
    expect(cell("Stadtmuseum", 'as the "Stadtmuseum"').refusal).to.equal(null);
    expect(cell("Musée", '"Musée"').refusal).to.equal(null);
    expect(cell("Kunsthalle Nord", "Kunsthalle Nord - free entry").refusal).to.equal(null);
  });
});

describe("research validation: entities whose names share a prefix", () => {
  const answer = (rows: Array<[string, string, string]>): ExtractionOutput => ({
    rows: rows.map(([name, value, quote]) => ({
      entity: { kind: "other", name, aliases: [] },
      cells: [{ column: "visitors", status: "found", value, quote }],
    })),
  });
  const text = [
    "The Harbour Museum Annex opened in 2004 and had 40,000 visitors.",
    "The Harbour Museum had 310,000 visitors.",
    "Harbourside Gallery is next door.",
  ].join("\n");

  it("does not credit a longer name's sentence to the shorter name inside it", () => {
    const validation = validatePage(
      "http://site/harbour",
      text,
      answer([
        ["Harbour Museum", "40000", "The Harbour Museum Annex opened in 2004 and had 40,000 visitors"],
        ["Harbour Museum Annex", "40000", "The Harbour Museum Annex opened in 2004 and had 40,000 visitors"],
      ]),
      [visitors, opened, city],
    );
    const kept = validation.candidates.map((c) => [c.name, c.cells.get(visitors.id)?.cell.value ?? null]);
    expect(kept).to.deep.equal([
      ["Harbour Museum", null],
      ["Harbour Museum Annex", 40_000],
    ]);
    expect(validation.refusals.map((r) => [r.entity, r.code])).to.deep.equal([
      ["Harbour Museum", "quote_not_about_entity"],
    ]);
  });

  it("finds a name only as a whole word: 'Harbour' is not on a page that says only 'Harbourside'", () => {
    const validation = validatePage(
      "http://site/harbour",
      "Harbourside Gallery had 9,000 visitors.\nThe Quay Museum had 12,000 visitors.",
      answer([
        ["Harbour", "9000", "Harbourside Gallery had 9,000 visitors"],
        ["Quay Museum", "12000", "The Quay Museum had 12,000 visitors"],
      ]),
      [visitors],
    );
    expect(validation.rejectedNames).to.deep.equal(["Harbour"]);
  });
});

describe("research validation: names as pages inflect and run them", () => {
  const named = (name: string, text: string) =>
    validatePage("http://site/x", text, { rows: [{ entity: { kind: "other", name, aliases: [] }, cells: [] }] }, [
      visitors,
    ]).rejectedNames;

  it("finds a name with a genitive s after it, and in a script written without spaces", () => {
    expect(named("Städel Museum", "Die Sammlung des Städel Museums wächst.")).to.deep.equal([]);
    expect(named("東京国立博物館", "東京国立博物館は1872年に開館した。")).to.deep.equal([]);
    expect(named("Harbour", "Harbourside Gallery is open.")).to.deep.equal(["Harbour"]);
  });

  it("reads a range of years written with a hyphen as two years, not a year and a negative one", () => {
    expect(quantitiesIn("open 1990-2001, and -5 degrees")).to.deep.equal([1990, 2001, -5]);
  });
});

describe("research grounding: a table row's label cell", () => {
  it("reads a number in the cell naming the column as its label, not as the value beside it", () => {
    const text = "Visitors (2024) | 310 000\nStaff | 42";
    expect(ground("310000", "Visitors (2024) | 310 000", text, ["visit"]).cell.value).to.equal(310_000);
    expect(ground("2024", "Visitors (2024) | 310 000", text, ["visit"]).refusal).to.equal("quote_not_about_value");
    // A cell that names the column and says the only number still says it.
    expect(ground("42", "Staff | 42", text, ["staff"]).cell.value).to.equal(42);
  });
});

describe("research validation: blocks broken by <br> and sections under headings", () => {
  const answer = (rows: Array<[string, string, string]>): ExtractionOutput => ({
    rows: rows.map(([name, value, quote]) => ({
      entity: { kind: "other", name, aliases: [] },
      cells: [{ column: "opened", status: "found", value, quote }],
    })),
  });
  /** Per entity, the opening year kept from the page, or the refusal. */
  const kept = (text: string, rows: Array<[string, string, string]>, headingsMarked = true) => {
    const v = validatePage("http://site/museums", text, answer(rows), [opened], 0, "en", headingsMarked);
    return Object.fromEntries(
      v.candidates.map((c) => {
        const cell = c.cells.get(opened.id)!;
        return [c.name, cell.refusal ?? cell.cell.value];
      }),
    );
  };
  const others = "Harbour Museum tells the story of the docks.\nQuay Gallery shows paintings.";

  it("credits a card's lines to the one entity it names, never to another named beside it", () => {
    const card = "Lantern House\u2028Opened: 1958\u2028Visitors: 12 000";
    expect(kept(`${others}\n${card}`, [["Lantern House", "1958", "Opened: 1958"]])).to.deep.equal({
      "Lantern House": 1958,
    });
    // A card naming two entities says nothing of either beyond its lines naming them.
    const shared = "Lantern House\u2028Opened: 1958\u2028Sister museum: Quay Gallery";
    expect(
      kept(`${others}\n${shared}`, [
        ["Lantern House", "1958", "Opened: 1958"],
        ["Quay Gallery", "1958", "Opened: 1958"],
      ]),
    ).to.deep.equal({ "Lantern House": "quote_not_about_entity", "Quay Gallery": "quote_not_about_entity" });
  });

  it("credits a section's facts to the entity its heading alone names, until the next heading of its level", () => {
    const text = [
      "# Museums of the coast",
      "## Harbour Museum",
      "Opened | 1897",
      "### Collections",
      "Ships in bottles | 1904",
      "## Lantern House",
      "Opened | 1958",
      "Its neighbour Quay Gallery opened in 1921.",
      "## Harbour Museum and Quay Gallery",
      "Joint ticket | 1990",
      "## Visiting",
      "Last entry | 1700",
    ].join("\n");
    const quotes: Array<[string, string]> = [
      ["1897", "Opened | 1897"],
      ["1904", "Ships in bottles | 1904"],
      ["1958", "Opened | 1958"],
      ["1921", "opened in 1921"],
      ["1990", "Joint ticket | 1990"],
      ["1700", "Last entry | 1700"],
    ];
    // One answer naming the three museums, each with every quote: what is kept for `name`.
    const each = (name: string, marked = true) => {
      const names = ["Harbour Museum", "Lantern House", "Quay Gallery"];
      const rows = names.flatMap((n) => quotes.map(([value, quote]): [string, string, string] => [n, value, quote]));
      return validatePage("http://site/compare", text, answer(rows), [opened], 0, "en", marked)
        .candidates.filter((c) => c.name === name)
        .map((c) => c.cells.get(opened.id)!.refusal ?? c.cells.get(opened.id)!.cell.value);
    };
    const refused = "quote_not_about_entity";
    // Only the heading's own entity, and never a line naming another one or under a heading naming two.
    expect(each("Harbour Museum")).to.deep.equal([1897, 1904, refused, refused, refused, refused]);
    expect(each("Lantern House")).to.deep.equal([refused, refused, 1958, refused, refused, refused]);
    expect(each("Quay Gallery")).to.deep.equal([refused, refused, refused, 1921, refused, refused]);
    // Text recorded before headings were marked replays as it did: no sections.
    expect(each("Lantern House", false)).to.deep.equal([refused, refused, refused, refused, refused, refused]);
  });

  it("keeps running prose without headings to its blocks: the last name mentioned is not the subject", () => {
    const prose = "Harbour Museum is the oldest.\nLantern House is the newest.\nIt opened in 1958.";
    expect(
      kept(prose, [
        ["Harbour Museum", "1958", "It opened in 1958"],
        ["Lantern House", "1958", "It opened in 1958"],
      ]),
    ).to.deep.equal({ "Harbour Museum": "quote_not_about_entity", "Lantern House": "quote_not_about_entity" });
  });
});
