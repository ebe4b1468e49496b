import { expect } from "chai";
import { coerce, parseNumber } from "../src/engine/coerce.js";

describe("cell coercion", () => {
  for (const [text, value] of [
    ["£51.77", 51.77],
    ["$1,234.50", 1234.5],
    ["1.234,50 €", 1234.5],
    ["1,234", 1234],
    ["12,5", 12.5],
    ["-3", -3],
    ["− 4.00", -4],
    ["(12.00)", -12],
    ["+7", 7],
    ["1.000.000", 1000000],
    ["Price: 0.99 GBP", 0.99],
  ] as const) {
    it(`reads ${JSON.stringify(text)} as ${value}`, () => expect(parseNumber(text)).to.equal(value));
  }
  it("reads a negative zero as zero, which every store answers alike", () => {
    for (const text of ["-0", "(0.00)", "−0,00 €"]) expect(Object.is(parseNumber(text), 0), text).to.equal(true);
  });

  it("refuses text without a number", () => {
    expect(coerce("In stock", "number")).to.deep.equal({
      value: null,
      missingReason: "extraction_failed",
      raw: "In stock",
    });
  });
  it("reads booleans as true/false/yes/no/1/0, any case", () => {
    expect(["TRUE", "no", "Yes", "0", "1", "false"].map((t) => coerce(t, "boolean").value)).to.deep.equal([
      true,
      false,
      true,
      false,
      true,
      false,
    ]);
    expect(coerce("maybe", "boolean").missingReason).to.equal("extraction_failed");
  });
  it("normalises whitespace in strings, and an absent or empty read is not_found", () => {
    expect(coerce("  A \n Light\tin the Attic ", "string").value).to.equal("A Light in the Attic");
    expect(coerce(null, "string").missingReason).to.equal("not_found");
    expect(coerce("   ", "number").missingReason).to.equal("not_found");
  });
});
