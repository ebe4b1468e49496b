import { expect } from "chai";
import { paddedValues } from "../src/db.js";

// Every statement text is a prepared statement, and a process names at most a thousand: a VALUES list
// padded to a power of two keeps the texts of a bulk insert to a handful, whatever its length.
describe("postgres store: padded VALUES lists", () => {
  const texts = (count: number) =>
    paddedValues(
      Array.from({ length: count }, (_, i) => i),
      ["text", "bytea"],
      (i) => [`k${i}`, Buffer.from([i])],
    );

  it("pads to the next power of two with rows of nulls, after the items in order", () => {
    const { sql, values } = texts(3);
    expect(sql).to.equal(
      "values ($1::text, $2::bytea), ($3::text, $4::bytea), ($5::text, $6::bytea), ($7::text, $8::bytea)",
    );
    expect(values).to.deep.equal(["k0", Buffer.from([0]), "k1", Buffer.from([1]), "k2", Buffer.from([2]), null, null]);
  });

  it("makes 11 statement texts for every length from 1 to 1024", () => {
    const distinct = new Set(Array.from({ length: 1024 }, (_, i) => texts(i + 1).sql));
    expect(distinct.size).to.equal(11);
  });
});
