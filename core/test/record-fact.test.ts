import { expect } from "chai";
import { recordFact } from "../src/rules/record-fact.js";

describe("a record's fact", () => {
  it("keeps the row key, where it was read and every cell (value, missing reason, text read) in column order", () => {
    const fact = recordFact({
      pageUrl: "http://shop.test/p/1",
      index: 3,
      entryId: "3",
      rowKey: "sku-9",
      cells: new Map([
        ["price", { value: 12.5, missingReason: null, raw: "$12.50" }],
        ["title", { value: null, missingReason: "not_found", raw: null }],
      ]),
    });
    expect(fact).to.deep.equal({
      rowKey: "sku-9",
      pageUrl: "http://shop.test/p/1",
      index: 3,
      cells: [
        { fieldId: "price", value: 12.5, missingReason: null, raw: "$12.50" },
        { fieldId: "title", value: null, missingReason: "not_found", raw: null },
      ],
    });
  });
});
