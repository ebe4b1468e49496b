import { expect } from "chai";
import { runBooksExample } from "../embedded/run-books.js";

describe("examples/embedded", () => {
  it("runs the books site to an accepted run with 1000 new rows, no HTTP host involved", async () => {
    const run = await runBooksExample();
    expect(run.status).to.equal("succeeded");
    expect(run.rowDeltas).to.deep.equal({ new: 1000, changed: 0, gone: 0 });
  });
});
