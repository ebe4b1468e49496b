import { Htmlparser2ParserLive } from "@gleaner/htmlparser2";
import { HttpFetcherLive } from "@gleaner/http";
import { MemoryRunQueueLive, MemoryStoreLive } from "@gleaner/memory";
import { expect } from "chai";
import { createGleaner, type Gleaner, GleanerError } from "../src/index.js";

const failure = (pending: Promise<unknown>) =>
  pending.then(
    () => {
      throw new Error("expected a failure");
    },
    (error: unknown) => error as GleanerError,
  );

describe("the Promise API (createGleaner)", () => {
  let gleaner: Gleaner;
  before(async () => {
    gleaner = await createGleaner({
      storage: MemoryStoreLive,
      queue: MemoryRunQueueLive(),
      fetcher: HttpFetcherLive({}),
      parser: Htmlparser2ParserLive,
      owner: "promise-api",
    });
  });
  after(() => gleaner.close());

  const body = (name: string) => ({
    name,
    columns: [{ name: "title", type: "string" as const, key: true }],
    source: {
      version: 1 as const,
      url: "https://books.example/",
      itemSelector: "article",
      fields: [{ name: "title", read: { selector: "h3" } }],
      identity: { kind: "source-key" as const, field: "title" },
      pagination: { kind: "none" as const },
    },
  });

  it("fails as the HTTP API answers: the code, the status and the fields named", async () => {
    const invalid = await failure(gleaner.datasets.create({ ...body("Bad"), name: "" }));
    expect(invalid).to.be.instanceOf(GleanerError);
    expect(invalid).to.include({ code: "validation_error", status: 422 });
    expect(invalid.details.map((d) => d.path)).to.include("/name");
    const created = await gleaner.datasets.create(body("Books"));
    const taken = await failure(gleaner.datasets.create(body("Books")));
    expect(taken).to.include({ code: "name_taken", status: 409 });
    const missingRun = await failure(gleaner.runs.accept("00000000-0000-4000-8000-000000000001"));
    expect(missingRun).to.include({ code: "not_found", status: 404 });
    await gleaner.datasets.delete(created.id);
    expect(await failure(gleaner.datasets.get(created.id))).to.include({ code: "not_found", status: 404 });
  });

  it("lists and pages datasets, and keeps the owner's usage", async () => {
    // Created at distinct instants: datasets created in the same millisecond are ordered by id.
    for (const name of ["A", "B", "C"]) {
      await gleaner.datasets.create(body(name));
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    const first = await gleaner.datasets.list({ limit: 2 });
    expect(first.data.map((d) => d.name)).to.deep.equal(["C", "B"]);
    const next = await gleaner.datasets.list({ limit: 2, cursor: first.nextCursor! });
    expect(next.data.map((d) => d.name)).to.deep.equal(["A"]);
    await gleaner.usage.grant(7);
    expect((await gleaner.usage.get()).balance).to.equal(7);
  });
});
