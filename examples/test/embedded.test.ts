import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { NotFoundError } from "@gleaner/core";
import { expect } from "chai";
import { runBooksExample } from "../embedded/run-books.js";
import { runBooksExample as runBooksWithEffect } from "../embedded/run-books-effect.js";

describe("examples/embedded", function () {
  this.timeout(120_000);
  it("runs the books site through the Promise API to an accepted run; a missing dataset is a NotFoundError 404", async () => {
    const { run, firstRows, missing, usage } = await runBooksExample();
    expect(run.status).to.equal("succeeded");
    expect(run.rowDeltas).to.deep.equal({ new: 1000, changed: 0, gone: 0 });
    expect(firstRows).to.have.length(3);
    expect(usage.balance).to.equal(50);
    expect(missing).to.be.instanceOf(NotFoundError);
    expect(missing).to.include({ name: "NotFoundError", code: "not_found", status: 404 });
  });

  it("runs as its README says (npm run embedded -w @gleaner/examples) and prints the run, rows and the 404", async () => {
    const root = fileURLToPath(new URL("../..", import.meta.url));
    const command = "npm run embedded -w @gleaner/examples";
    expect(readFileSync(new URL("../embedded/README.md", import.meta.url), "utf8")).to.contain(`    ${command}\n`);
    const [npm, ...args] = command.split(" ");
    const { stdout } = await promisify(execFile)(npm!, [...args, "--silent"], { cwd: root });
    // The worker's log lines (logfmt, from `timestamp=`) interleave with what the example prints.
    const lines = stdout
      .trim()
      .split("\n")
      .filter((line) => !line.startsWith("timestamp="));
    expect(lines[0]).to.match(/^Run [0-9a-f-]{36}: succeeded, 1000 new rows; 50 credits left\.$/);
    const rows = lines.slice(1, 4).map((line) => JSON.parse(line));
    expect(rows).to.have.length(3);
    for (const row of rows) expect(Object.values(row)).to.have.length(3);
    expect(lines[4]).to.equal("Reading a dataset that does not exist: NotFoundError, not_found (404).");
  });

  it("runs the books site through the Effect use cases to the same accepted run, no HTTP host involved", async () => {
    const run = await runBooksWithEffect();
    expect(run.status).to.equal("succeeded");
    expect(run.rowDeltas).to.deep.equal({ new: 1000, changed: 0, gone: 0 });
  });
});
