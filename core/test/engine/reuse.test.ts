import { expect } from "chai";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as Option from "effect/Option";
import {
  type AcceptedRead,
  type DatasetColumn,
  decodesAsItIs,
  Fetcher,
  type FetchRequest,
  getTrace,
  RunEvidenceRecord,
  type RunEvidence,
  type RunId,
  type Source,
  Storage,
  StorageFailure,
} from "../../src/index.js";
import { conditionalFor, fromStoredExtraction, recipeDigest, toStoredExtraction } from "../../src/engine/reuse.js";
import { fetchedPage } from "./fetched-page.js";
import { shopEngine } from "./shop-engine.js";
import { goodPages as pages, site } from "./shop-site.js";

describe("reuse of a page's extraction: the rule", () => {
  const columns = [
    { id: "c1", name: "link", type: "string", ownership: "collected", key: true, label: "Link" },
    { id: "c2", name: "price", type: "number", ownership: "collected", key: false, label: "Price" },
  ] as unknown as ReadonlyArray<DatasetColumn>;
  const source = {
    version: 1,
    url: `${site}/p1`,
    render: "static",
    itemSelector: "article",
    fields: [
      { name: "link", read: { selector: "a", kind: "attribute", attribute: "href" }, required: false },
      { name: "price", read: { selector: "p.price", kind: "text" }, required: true },
    ],
    identity: { kind: "source-key", field: "link" },
    pagination: { kind: "next-link", selector: "li.next > a" },
    maxPages: 10,
    maxItems: 1000,
    minimumItems: 1,
    proxy: "auto",
    ignoreRobots: false,
  } as unknown as Source;
  const digest = (s: Source, c: ReadonlyArray<DatasetColumn> = columns) => Effect.runPromise(recipeDigest(s, c));

  it("the recipe is what extraction reads: selectors, reads, identity, pagination and the columns", async () => {
    const base = await digest(source);
    const reordered = JSON.parse(JSON.stringify(source, Object.keys(source).sort())) as Source;
    expect(
      await digest({ ...reordered, fields: source.fields, identity: source.identity, pagination: source.pagination }),
    ).to.equal(base);
    const changed: ReadonlyArray<Source> = [
      { ...source, itemSelector: "li" },
      { ...source, fields: [source.fields[0]!, { ...source.fields[1]!, read: { selector: "p.cost", kind: "text" } }] },
      { ...source, identity: { kind: "composite", fields: ["link", "price"] } },
      { ...source, pagination: { kind: "none" } },
    ];
    for (const other of changed) expect(await digest(other), JSON.stringify(other)).to.not.equal(base);
    const typed = columns.map((c) =>
      c.name === "price" ? { ...c, type: "string" } : c,
    ) as ReadonlyArray<DatasetColumn>;
    expect(await digest(source, typed)).to.not.equal(base);
    const added = [
      ...columns,
      { id: "c3", name: "notes", type: "string", ownership: "user", key: false, label: "Notes" },
    ];
    expect(await digest(source, added as unknown as ReadonlyArray<DatasetColumn>)).to.not.equal(base);
  });

  it("limits, render, proxy, robots and labels are not part of it: they do not change what a page yields", async () => {
    const base = await digest(source);
    const same: ReadonlyArray<Source> = [
      { ...source, maxPages: 3, maxItems: 5, minimumItems: 0 },
      { ...source, render: "browser", proxy: "never", ignoreRobots: true },
    ];
    for (const other of same) expect(await digest(other)).to.equal(base);
    const relabelled = columns.map((c) => ({
      ...c,
      label: "Other",
      description: "words",
    })) as ReadonlyArray<DatasetColumn>;
    expect(await digest(source, relabelled)).to.equal(base);
  });

  it("a kept extraction survives JSON and gives back the same records, entries and next page", () => {
    const extraction = {
      records: [
        {
          pageUrl: `${site}/p1`,
          index: 0,
          entryId: "0",
          rowKey: `${site}/b/1`,
          cells: new Map([
            ["c1", { value: `${site}/b/1`, missingReason: null, raw: "/b/1" }],
            ["c2", { value: null, missingReason: "extraction_failed" as const, raw: "abc" }],
          ]),
        },
      ],
      entries: [{ id: "0", excerpt: "<article>…</article>", truncated: false }],
    };
    const stored = JSON.parse(JSON.stringify(toStoredExtraction(extraction, `${site}/p2`)));
    expect(stored.next).to.equal(`${site}/p2`);
    expect(fromStoredExtraction(stored, `${site}/p1`)).to.deep.equal(extraction);
  });

  it("gives back the records as read at the URL asked, whether the store kept its own copy or the one it was given", () => {
    const record = (pageUrl: string) => ({
      pageUrl,
      index: 0,
      entryId: "0",
      rowKey: "k",
      cells: new Map([["c1", { value: 1, missingReason: null, raw: "1" }]]),
    });
    const entries = [{ id: "0", excerpt: "<li>1</li>", truncated: false }];
    const kept = toStoredExtraction({ records: [record(`${site}/p1`)], entries }, null);
    expect(fromStoredExtraction(kept, `${site}/p1`).records).to.deep.equal([record(`${site}/p1`)]);
    // The same kept records read at another URL (a redirect moved the page) cite that URL.
    expect(fromStoredExtraction(kept, `${site}/p1?moved`).records).to.deep.equal([record(`${site}/p1?moved`)]);
    expect(fromStoredExtraction(structuredClone(kept), `${site}/p1`).records).to.deep.equal([record(`${site}/p1`)]);
    // A research record's entity and quoted sources are not part of the kept form: never handed back.
    const researched = {
      ...record(`${site}/p1`),
      identity: { version: 1, key: `entity:${"a".repeat(64)}`, kind: "other", anchor: "k", aliases: ["k"] },
      cellSources: new Map([["c1", { pageUrl: `${site}/p9`, entryId: "3" }]]),
    } as const;
    const keptResearch = toStoredExtraction({ records: [researched], entries }, null);
    expect(fromStoredExtraction(keptResearch, `${site}/p1`).records).to.deep.equal([record(`${site}/p1`)]);
  });

  it("asks conditionally only with validators and a kept body to stand for a 304, at the URL the read ended", () => {
    const kept = {
      finalUrl: `${site}/p1?x`,
      etag: '"v1"',
      lastModified: null,
      body: "<html></html>",
    } as unknown as AcceptedRead;
    expect(conditionalFor(kept)).to.deep.equal({ url: `${site}/p1?x`, etag: '"v1"', lastModified: null });
    expect(conditionalFor({ ...kept, body: null })).to.equal(undefined);
    expect(conditionalFor({ ...kept, etag: null })).to.equal(undefined);
    expect(conditionalFor(null)).to.equal(undefined);
  });
});

/** Two runs of the engine on the memory store; the second sees the store through `tamper`. */
const twoRuns = async (options: {
  tamper?: (read: AcceptedRead) => Effect.Effect<Option.Option<AcceptedRead>, StorageFailure>;
  /** The fetcher answers 304 to every conditional request. */
  notModified?: boolean;
}) => {
  const requests: FetchRequest[] = [];
  const lookups: string[] = [];
  const bodiesStored: Array<ReadonlyArray<string> | undefined> = [];
  let tampering = false;
  const wrap = (storage: StorageService): Partial<StorageService> => ({
    acceptedReads: (datasetId) =>
      Effect.flatMap(
        Effect.andThen(
          Effect.sync(() => lookups.push(datasetId)),
          storage.acceptedReads(datasetId),
        ),
        (found) =>
          tampering && options.tamper
            ? Effect.map(Effect.forEach(found, options.tamper), (reads) => reads.flatMap(Option.toArray))
            : Effect.succeed(found),
      ),
    acceptRun: (acceptance) =>
      Effect.andThen(
        Effect.sync(() => bodiesStored.push(acceptance.bodiesStored)),
        storage.acceptRun(acceptance),
      ),
  });
  const fetcher = Layer.succeed(Fetcher, {
    read: (request) => {
      requests.push(request);
      const html = pages[request.url]!;
      const answer = {
        ...fetchedPage(request.url, html),
        validators: { etag: `"${html.length}"`, lastModified: null },
      };
      return Effect.succeed(
        options.notModified && request.conditional ? { ...answer, status: 304, body: "", notModified: true } : answer,
      );
    },
  });
  const { run, owner, execute: executeOne, dispose } = await shopEngine(wrap, fetcher);
  const execute = async () => {
    const stored = await executeOne();
    const runId = stored.id;
    const { trace } = await run(getTrace(owner.id, runId));
    const evidence: RunEvidence = Option.getOrThrow(
      await run(Effect.flatMap(Storage, (s) => s.getRunEvidence(runId as RunId))),
    );
    const extracted = trace.steps.filter((s) => s.phase === "extract").map((s) => s.sourceUrl);
    return { stored, trace, evidence, extracted };
  };
  const first = await execute();
  const firstLookups = lookups.splice(0);
  tampering = true;
  requests.length = 0;
  const second = await execute();
  await dispose();
  return {
    first,
    second,
    requests,
    firstLookups,
    secondLookups: lookups,
    bodiesStored,
  };
};

describe("reuse of a page's extraction: the engine", () => {
  // Decision 0042: asked page by page, a run waited on the store once per page.
  it("asks the store for the dataset's kept reads once per run, whatever the number of pages", async () => {
    const { first, firstLookups, secondLookups } = await twoRuns({});
    expect(firstLookups).to.deep.equal([first.stored.datasetId]);
    expect(secondLookups).to.deep.equal([first.stored.datasetId]);
  });

  it("names the bodies the store served a re-run as stored, none of a first run (decision 0042)", async () => {
    const { first, second, bodiesStored } = await twoRuns({});
    // The acceptance says which bodies the store holds already, so a store that keeps bodies apart
    // (PostgreSQL) is not sent them again: a first run's are all new to the dataset.
    expect(bodiesStored[0]).to.deep.equal([]);
    expect(bodiesStored[1]).to.deep.equal(second.evidence.artifacts.map((a) => a.sha256));
    expect(bodiesStored[1]).to.have.members(first.evidence.artifacts.map((a) => a.sha256));
    expect(bodiesStored[1]).to.have.length(2);
  });

  it("does not name a reused page's body as stored when its kept read came without one", async () => {
    const { second, bodiesStored } = await twoRuns({
      tamper: (read) => Effect.succeed(Option.some({ ...read, body: null })),
    });
    // Still reused (same digest), but nothing says the store has the bytes: the acceptance stores them.
    expect(second.evidence.plan?.reused).to.have.length(2);
    expect(bodiesStored[1]).to.deep.equal([]);
    expect(second.evidence.artifacts.map((a) => a.body)).to.deep.equal(
      [`${site}/p1`, `${site}/p2`].map((u) => pages[u]),
    );
  });

  // Decision 0042: a store reads a run's evidence back through storedDecoder, whose fast path takes
  // only what is already in the schemas' key order (15 → 3 ms for a 50-page run's trace and plan).
  it("records a run's trace steps and reconciliation in their schemas' key order: the evidence decodes as it is", async () => {
    const { first, second } = await twoRuns({});
    for (const { evidence } of [first, second]) {
      const { artifacts: _, ...record } = evidence;
      expect(record.trace.steps.map((step) => step.phase)).to.include.members(["read", "accept"]);
      expect(record.plan?.reconciliation).to.not.equal(null);
      expect(decodesAsItIs(RunEvidenceRecord, record)).to.equal(true);
    }
  });

  it("an unchanged re-run parses nothing and records each reused page in its plan", async () => {
    const { first, second, requests } = await twoRuns({});
    // The fetcher is told the kept page, so it can recognise the same bytes without judging them again.
    expect(requests.map((r) => r.known)).to.deep.equal(
      [`${site}/p1`, `${site}/p2`].map((url) => ({ url, body: pages[url] })),
    );
    expect(first.extracted).to.have.length(2);
    expect(second.extracted).to.deep.equal([]);
    expect(second.stored.status).to.equal("succeeded");
    expect(second.stored.chargedPages).to.equal(2);
    expect(second.evidence.plan?.reused).to.deep.equal([
      { url: `${site}/p1`, fromRunId: first.stored.id, basis: "same_digest" },
      { url: `${site}/p2`, fromRunId: first.stored.id, basis: "same_digest" },
    ]);
    expect(second.evidence.facts).to.deep.equal(first.evidence.facts);
  });

  it("every check runs on reused records: a kept extraction with unreadable prices fails the run", async () => {
    const { second } = await twoRuns({
      tamper: (read) =>
        Effect.succeed(
          Option.some({
            ...read,
            extraction: read.extraction && {
              ...read.extraction,
              records: read.extraction.records.map((r) => ({
                ...r,
                cells: r.cells.map(([id, value, reason, raw]) =>
                  raw?.startsWith("£")
                    ? ([id, null, "extraction_failed", "£?"] as const)
                    : ([id, value, reason, raw] as const),
                ),
              })),
            },
          }),
        ),
    });
    expect(second.extracted).to.deep.equal([]);
    expect(second.stored.status).to.equal("failed");
    expect(second.stored.chargedPages).to.equal(null);
    expect(second.stored.checks.filter((c) => !c.passed).map((c) => c.checkId)).to.deep.equal(["extraction"]);
  });

  it("a kept extraction that is gone, or a store that cannot answer, means parsing: never a failed run", async () => {
    for (const tamper of [
      (read: AcceptedRead) => Effect.succeed(Option.some({ ...read, extraction: null })),
      () => Effect.succeed(Option.none<AcceptedRead>()),
      () => Effect.fail(new StorageFailure({ message: "the page reads are away" })),
    ]) {
      const { second } = await twoRuns({ tamper });
      expect(second.stored.status).to.equal("succeeded");
      expect(second.extracted).to.have.length(2);
      expect(second.evidence.plan?.reused).to.equal(undefined);
    }
  });

  it("a 304 stands for the kept page: its body is the artifact, its records reused, its basis not_modified", async () => {
    const { first, second, requests } = await twoRuns({ notModified: true });
    expect(requests.map((r) => r.conditional)).to.deep.equal([
      { url: `${site}/p1`, etag: `"${pages[`${site}/p1`]!.length}"`, lastModified: null },
      { url: `${site}/p2`, etag: `"${pages[`${site}/p2`]!.length}"`, lastModified: null },
    ]);
    expect(second.stored.status).to.equal("succeeded");
    expect(second.extracted).to.deep.equal([]);
    expect(second.evidence.plan?.reused?.map((r) => r.basis)).to.deep.equal(["not_modified", "not_modified"]);
    expect(second.evidence.artifacts.map((a) => [a.url, a.sha256, a.body])).to.deep.equal(
      first.evidence.artifacts.map((a) => [a.url, a.sha256, a.body]),
    );
  });

  it("without a kept body no validators are sent (a 304 could not stand for the page); equal bytes still reuse", async () => {
    const { second, requests } = await twoRuns({
      notModified: true,
      tamper: (read) => Effect.succeed(Option.some({ ...read, body: null })),
    });
    expect(requests.map((r) => r.conditional)).to.deep.equal([undefined, undefined]);
    expect(second.stored.status).to.equal("succeeded");
    expect(second.evidence.plan?.reused?.map((r) => r.basis)).to.deep.equal(["same_digest", "same_digest"]);
  });
});
