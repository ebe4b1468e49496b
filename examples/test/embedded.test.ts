import { expect } from "chai";
import { runBooksExample } from "../embedded/run-books.js";
import { runBooksExample as runBooksWithEffect } from "../embedded/run-books-effect.js";

describe("examples/embedded", () => {
  it("runs the books site through the Promise API to an accepted run; a missing dataset is a GleanerError 404", async () => {
    const { run, firstRows, missing, usage } = await runBooksExample();
    expect(run.status).to.equal("succeeded");
    expect(run.rowDeltas).to.deep.equal({ new: 1000, changed: 0, gone: 0 });
    expect(firstRows).to.have.length(3);
    expect(usage.balance).to.equal(50);
    expect(missing).to.include({ name: "GleanerError", code: "not_found", status: 404 });
  });

  it("runs the books site through the Effect use cases to the same accepted run, no HTTP host involved", async () => {
    const run = await runBooksWithEffect();
    expect(run.status).to.equal("succeeded");
    expect(run.rowDeltas).to.deep.equal({ new: 1000, changed: 0, gone: 0 });
  });
});
