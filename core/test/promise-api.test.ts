import { execFile } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { booksDataset, loadBooks, startBooksSite } from "@gleaner/conformance";
import { Htmlparser2ParserLive } from "@gleaner/htmlparser2";
import { HttpFetcherLive } from "@gleaner/http";
import { MemoryRunQueueLive, MemoryStoreLive } from "@gleaner/memory";
import { expect } from "chai";
import {
  ConflictError,
  createGleaner,
  type Gleaner,
  GleanerError,
  InsufficientCreditsError,
  NotFoundError,
  RunWaitTimeoutError,
  ValidationFailedError,
} from "../src/index.js";

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
    expect(invalid).to.be.instanceOf(ValidationFailedError).and.instanceOf(GleanerError);
    expect(invalid).to.include({ name: "ValidationFailedError", code: "validation_error", status: 422 });
    expect(invalid.details.map((d) => d.path)).to.include("/name");
    const created = await gleaner.datasets.create(body("Books"));
    const taken = await failure(gleaner.datasets.create(body("Books")));
    expect(taken).to.be.instanceOf(ConflictError);
    expect(taken).to.include({ code: "name_taken", status: 409 });
    const missingRun = await failure(gleaner.runs.accept("00000000-0000-4000-8000-000000000001"));
    expect(missingRun).to.be.instanceOf(NotFoundError);
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

describe("the Promise API on a site: runs, rows, changes and credits", function () {
  this.timeout(60_000);
  let gleaner: Gleaner;
  let site: Awaited<ReturnType<typeof startBooksSite>>;
  // Ten books, five a page: a run reads two pages and costs two credits.
  before(async () => {
    site = await startBooksSite({ books: loadBooks().slice(0, 10), pageSize: 5 });
    const allowPrivateTargets = ["127.0.0.1/32"];
    gleaner = await createGleaner({
      storage: MemoryStoreLive,
      queue: MemoryRunQueueLive(),
      fetcher: HttpFetcherLive({ allowPrivateTargets }),
      parser: Htmlparser2ParserLive,
      allowPrivateTargets,
      owner: "promise-api-site",
    });
  });
  after(async () => {
    await gleaner?.close();
    await site?.close();
  });

  let datasetId: string;
  let runId: string;
  const column = async (name: string) =>
    (await gleaner.datasets.get(datasetId)).columns.find((c) => c.name === name)!.id;

  it("refuses a run without credits, holds one the balance cannot pay, and accepts it once paid", async () => {
    datasetId = (await gleaner.datasets.create(booksDataset(site) as never)).id;
    const broke = await failure(gleaner.runs.start(datasetId));
    expect(broke).to.be.instanceOf(InsufficientCreditsError);
    expect(broke).to.include({ code: "insufficient_credits", status: 402, balance: 0, required: 1 });

    await gleaner.usage.grant(1);
    runId = (await gleaner.runs.start(datasetId)).runId;
    expect((await gleaner.runs.wait(runId)).status).to.equal("held");
    expect((await gleaner.runs.get(runId)).status).to.equal("held");
    expect((await gleaner.runs.list(datasetId, { limit: 5 })).data.map((r) => r.id)).to.deep.equal([runId]);
    const { diagnostics } = await gleaner.runs.diagnostics(runId, { summary: "true" });
    expect(diagnostics.findings.map((f) => f.code)).to.include("run_held_insufficient_credits");
    const { trace } = await gleaner.runs.trace(runId);
    expect(trace).to.include({ runId, status: "held" });
    expect((await gleaner.rows.list(datasetId)).data).to.deep.equal([]);

    const unpaid = await failure(gleaner.runs.accept(runId));
    expect(unpaid).to.be.instanceOf(InsufficientCreditsError);
    expect(unpaid).to.include({ balance: 1, required: 2 });
    await gleaner.usage.grant(5);
    const accepted = await gleaner.runs.accept(runId);
    expect(accepted.run).to.include({ id: runId, status: "succeeded" });
    expect(accepted.run.rowDeltas).to.deep.equal({ new: 10, changed: 0, gone: 0 });
    expect((await gleaner.usage.get()).balance).to.equal(6 - 2);
    const again = await failure(gleaner.runs.accept(runId));
    expect(again).to.be.instanceOf(ConflictError);
    expect(again).to.include({ code: "run_not_held", status: 409 });
    expect((await gleaner.usage.get()).balance, "charged once").to.equal(4);
  });

  it("edits a row by hand and the change feed shows the edit, by row and by column", async () => {
    const notes = await column("notes");
    const { data } = await gleaner.rows.list(datasetId, { limit: 3, status: "new" });
    expect(data).to.have.length(3);
    const row = await gleaner.rows.get(datasetId, data[0]!.id);
    const edited = await gleaner.rows.edit(datasetId, row.id, {
      expectedRevisionId: row.revisionId,
      requestId: "promise-api-edit-1",
      values: { [notes]: "read it" },
    });
    expect(edited.data[notes]).to.equal("read it");
    expect((await gleaner.rows.get(datasetId, row.id)).data[notes]).to.equal("read it");
    const stale = await failure(
      gleaner.rows.edit(datasetId, row.id, {
        expectedRevisionId: row.revisionId,
        requestId: "promise-api-edit-2",
        values: { [notes]: "again" },
      }),
    );
    expect(stale).to.be.instanceOf(ConflictError);
    expect(stale.code).to.equal("stale_revision");

    const all = await gleaner.changes.list(datasetId, { after: 0, limit: 100 });
    expect(all.data).to.have.length(11);
    expect(all.data.at(-1)).to.include({ rowId: row.id, origin: "user" });
    const cell = await gleaner.changes.list(datasetId, { rowId: row.id, fieldId: notes });
    expect(cell.data.map((c) => c.data[notes])).to.deep.equal(["read it"]);
    const refused = await failure(gleaner.changes.list(datasetId, { fieldId: notes }));
    expect(refused).to.include({ code: "bad_request", status: 400 });
  });

  it("updates a dataset, refusing a stale schema version as a conflict", async () => {
    const before = await gleaner.datasets.get(datasetId);
    const renamed = await gleaner.datasets.update(datasetId, { name: "Ten books", question: "Which books?" });
    expect(renamed).to.include({ name: "Ten books", question: "Which books?" });
    const stale = await failure(
      gleaner.datasets.update(datasetId, {
        expectedSchemaVersion: before.schemaVersion + 1,
        columns: [{ name: "shelf", type: "string", ownership: "user" }],
      }),
    );
    expect(stale).to.be.instanceOf(ConflictError);
    expect(stale.code).to.equal("schema_version_conflict");
    expect((await gleaner.datasets.get(datasetId)).name).to.equal("Ten books");
  });

  it("gives up waiting with a RunWaitTimeoutError, not an API error, and the run goes on", async () => {
    const slow = await startBooksSite({ books: loadBooks().slice(0, 5), delayMs: 300 });
    try {
      const created = await gleaner.datasets.create(booksDataset(slow) as never);
      const started = await gleaner.runs.start(created.id);
      const gaveUp = await gleaner.runs.wait(started.runId, { timeoutMs: 0 }).catch((e: unknown) => e);
      expect(gaveUp).to.be.instanceOf(RunWaitTimeoutError).and.not.instanceOf(GleanerError);
      expect(gaveUp).to.include({ runId: started.runId, timeoutMs: 0 });
      expect(["queued", "running"]).to.include((gaveUp as RunWaitTimeoutError).lastStatus);
      expect((await gleaner.runs.wait(started.runId)).status).to.equal("succeeded");
    } finally {
      await slow.close();
    }
  });
});

describe("the Promise API's types, as an integrator's compiler sees them", function () {
  this.timeout(120_000);
  it("refuses misspelled options and narrows errors by class (tsc on test/types, each @ts-expect-error used)", async () => {
    const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
    const project = fileURLToPath(new URL("./types/tsconfig.json", import.meta.url));
    const checked = await promisify(execFile)(process.execPath, [tsc, "-p", project]).then(
      () => "",
      (error: { stdout: string }) => error.stdout,
    );
    expect(checked).to.equal("");
  });
});
