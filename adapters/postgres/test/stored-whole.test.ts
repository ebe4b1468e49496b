import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { anAcceptance, seedOwnerWithDataset } from "@gleaner/conformance";
import {
  type ObservationId,
  type RecordFact,
  type RunAcceptance,
  type RunRecord,
  type SourceObservation,
  Storage,
  type StoredExtraction,
} from "@gleaner/core";
import { expect } from "chai";
import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import { bundledMigrationsDir } from "../src/index.js";
import { aClaimedRun, aStoreAndClientOnItsOwnSchema, whenPostgresReachable } from "./support.js";

// The store keeps every record whole in its table (issue 35): what a run accepted is what reads
// answer, and what the database holds is what the next read answers, whoever wrote it.
await whenPostgresReachable("postgres store: records stored whole", (url) => {
  describe("postgres store: records stored whole", () => {
    const { schema, run, client } = aStoreAndClientOnItsOwnSchema(url);

    const site = "http://127.0.0.1/books";
    const pageUrls = [`${site}/page-1.html`, `${site}/page-2.html`, `${site}/page-3.html`];
    const fieldId = globalThis.crypto.randomUUID();
    /** A page's records; `nul`: their text holds U+0000, which json keeps and the server cannot read inside. */
    const recordsOf = (page: number, nul: boolean): StoredExtraction["records"] =>
      [0, 1].map((index) => ({
        index,
        rowKey: index === 1 ? null : `${site}/book-${page}-${index}`,
        cells: [
          [fieldId, `Tab\there "quoted" ünï ✓${nul ? " NUL \u0000" : ""} ${page}.${index}`, null, ` raw ${index} `],
        ],
      }));
    const parsed = (nul = true): StoredExtraction[] => [
      {
        records: recordsOf(1, nul),
        entries: [{ id: "0", excerpt: "<li>one</li>", truncated: false }],
        next: pageUrls[1]!,
      },
      { records: recordsOf(2, nul), entries: [], next: pageUrls[2]! },
      { records: [], entries: [], next: null },
    ];
    const factsOf = (extractions: ReadonlyArray<StoredExtraction>): RecordFact[] =>
      extractions.flatMap((extraction, page) =>
        extraction.records.map((r) => ({
          rowKey: r.rowKey,
          pageUrl: pageUrls[page]!,
          index: r.index,
          cells: r.cells.map(([fieldId, value, missingReason, raw]) => ({ fieldId, value, missingReason, raw })),
        })),
      );
    const observationOf = (running: RunRecord): SourceObservation => ({
      id: globalThis.crypto.randomUUID() as ObservationId,
      sourceUrl: pageUrls[0]!,
      observedAt: "2026-01-02T03:04:05.678Z",
      contentDigest: `sha256:${"0".repeat(64)}`,
      entries: [{ id: "0", excerpt: "<li>one</li>", truncated: false }],
      datasetId: running.datasetId,
      runId: running.id,
      pageKey: pageUrls[0]!,
      method: "deterministic",
    });
    /** An accepted run that read three pages (the last yielding no record), parsed or reused. */
    const acceptance = (
      running: RunRecord,
      extractions: ReadonlyArray<StoredExtraction>,
      reused: boolean,
    ): RunAcceptance => {
      const base = anAcceptance(running, 1, []);
      return {
        ...base,
        observations: [observationOf(running)],
        evidence: { ...base.evidence, facts: factsOf(extractions) },
        pageReads: {
          recipe: "recipe-1",
          pages: extractions.map((extraction, page) => ({
            url: pageUrls[page]!,
            finalUrl: pageUrls[page]!,
            sha256: `${page}`.repeat(64),
            contentType: "text/html",
            etag: null,
            lastModified: null,
            extraction,
            reused,
            body: "<p>page</p>",
          })),
        },
      };
    };
    const accepted = async (datasetId: Parameters<typeof aClaimedRun>[0], make: (r: RunRecord) => RunAcceptance) => {
      const storage = await run(Storage);
      const running = await run(aClaimedRun(datasetId));
      const given = make(running);
      expect((await run(storage.acceptRun(given)))._tag).to.equal("Accepted");
      return { runId: running.id, given };
    };
    const keptExtractions = async (datasetId: string) =>
      [...(await run(Effect.flatMap(Storage, (s) => s.acceptedReads(datasetId as never))))]
        .sort((a, b) => (a.url < b.url ? -1 : 1))
        .map((read) => read.extraction);
    const evidenceFacts = async (runId: string) =>
      Option.getOrThrow(await run(Effect.flatMap(Storage, (s) => s.getRunEvidence(runId as never)))).facts;

    it("reads a run's page reads and facts back as accepted; a re-run that reused the pages keeps them", async () => {
      const { dataset } = await run(seedOwnerWithDataset(10));
      const first = await accepted(dataset, (running) => acceptance(running, parsed(), false));
      expect(await keptExtractions(dataset.id)).to.deep.equal(parsed());
      expect(await evidenceFacts(first.runId)).to.deep.equal(factsOf(parsed()));
      // A reused page sends its extraction as the store gave it; the store keeps the one it has.
      const again = await accepted(dataset, (running) => acceptance(running, parsed(), true));
      expect(await keptExtractions(dataset.id)).to.deep.equal(parsed());
      expect(await evidenceFacts(again.runId)).to.deep.equal(factsOf(parsed()));
      // A run that read only the first page keeps only that page's read.
      await accepted(dataset, (running) => acceptance(running, parsed().slice(0, 1), false));
      expect(await keptExtractions(dataset.id)).to.deep.equal(parsed().slice(0, 1));
    });

    it("answers a row fixed by hand in SQL on the next read, and refuses an acceptance holding its old head", async () => {
      const storage = await run(Storage);
      const { dataset } = await run(seedOwnerWithDataset(10));
      const first = await accepted(dataset, (running) => anAcceptance(running, 1, ["fix me"]));
      const [{ row }] = first.given.rows as [RunAcceptance["rows"][number]];
      expect((await run(storage.loadRows(dataset.id))).map((r) => r.data)).to.deep.equal([row.data]);
      const moved = globalThis.crypto.randomUUID();
      await client.query(`update "${schema}".rows set data = '{"fixed": "by hand"}', revision_id = $2 where id = $1`, [
        row.id,
        moved,
      ]);
      expect((await run(storage.loadRows(dataset.id))).map((r) => [r.data, r.revisionId])).to.deep.equal([
        [{ fixed: "by hand" }, moved],
      ]);
      const running = await run(aClaimedRun(dataset));
      const base = anAcceptance(running, 1, []);
      const stale = {
        ...base,
        rows: [{ row: { ...row, lastSeenRunId: running.id }, expectedRevisionId: row.revisionId }],
      };
      expect((await run(storage.acceptRun(stale)))._tag).to.equal("RowsChanged");
      expect(Option.getOrThrow(await run(storage.getRow(dataset.id, row.id))).data).to.deep.equal({ fixed: "by hand" });
    });

    // Databases written before migration 0019 kept a page's records in page_records (named by the
    // page read and by facts stored as {"pages": …}), a page read's entries in its observation
    // (entries_observation_id) and observation documents as json. 0019 puts them back whole.
    it("reads page reads, facts and observations stored in the forms before migration 0019 once it ran", async () => {
      const { dataset } = await run(seedOwnerWithDataset(10));
      const first = await accepted(dataset, (running) => acceptance(running, parsed(false), false));
      const [observation] = first.given.observations as [SourceObservation];
      await client.query(`set search_path to "${schema}"`);
      const extractions = parsed(false);
      for (const [page, url] of pageUrls.entries()) {
        const { records, entries, next } = extractions[page]!;
        await client.query("insert into page_records (key, records_text) values ($1, $2)", [
          `key-${page}`,
          JSON.stringify(records),
        ]);
        // The first page's entries were its observation's; the others kept their own.
        await client.query(
          `update page_reads set records_key = $3, extraction = $4::json, entries_observation_id = $5
            where dataset_id = $1 and url = $2`,
          [
            dataset.id,
            url,
            `key-${page}`,
            JSON.stringify(page === 0 ? { next } : { entries, next }),
            page === 0 ? observation.id : null,
          ],
        );
      }
      await client.query("update observations set document = document_text::json, document_text = null where id = $1", [
        observation.id,
      ]);
      const pages = [0, 1].map((page) => ({ url: pageUrls[page], records: `key-${page}` }));
      await client.query("update run_evidence set facts = $2::json where run_id = $1", [
        first.runId,
        JSON.stringify({ pages }),
      ]);
      const migration = await readFile(join(bundledMigrationsDir, "0019_stored_whole.sql"), "utf8");
      await client.query(migration);
      await client.query("set search_path to default");
      expect(await keptExtractions(dataset.id)).to.deep.equal(parsed(false));
      expect(await evidenceFacts(first.runId)).to.deep.equal(factsOf(parsed(false)));
      expect(await run(Effect.flatMap(Storage, (s) => s.getObservations([observation.id])))).to.deep.equal([
        observation,
      ]);
    });

    // The server cannot read inside JSON holding \u0000 (json keeps it, text cannot) with -> or
    // json_array_elements: 0019 then leaves that row (a page read it cannot rebuild is dropped, facts
    // stay as stored and their read fails, naming the run) and never fails the migration. Records it
    // only carries over (cast, json_build_object) come back whole.
    it("puts back a page read whose records hold \\u0000, leaves such facts as stored, and never fails", async () => {
      const { dataset } = await run(seedOwnerWithDataset(10));
      const first = await accepted(dataset, (running) => acceptance(running, parsed(true), false));
      await client.query(`set search_path to "${schema}"`);
      const [records] = parsed(true).map((extraction) => extraction.records);
      await client.query("insert into page_records (key, records_text) values ($1, $2)", [
        "nul-0",
        JSON.stringify(records),
      ]);
      const [{ entries, next }] = parsed(true) as [StoredExtraction];
      await client.query(
        "update page_reads set records_key = 'nul-0', extraction = $3::json where dataset_id = $1 and url = $2",
        [dataset.id, pageUrls[0], JSON.stringify({ entries, next })],
      );
      await client.query("update run_evidence set facts = $2::json where run_id = $1", [
        first.runId,
        JSON.stringify({ pages: [{ url: pageUrls[0], records: "nul-0" }] }),
      ]);
      const migration = await readFile(join(bundledMigrationsDir, "0019_stored_whole.sql"), "utf8");
      await client.query(migration);
      await client.query("set search_path to default");
      expect(await keptExtractions(dataset.id)).to.deep.equal(parsed(true));
      const evidence = await run(Effect.either(Effect.flatMap(Storage, (s) => s.getRunEvidence(first.runId))));
      expect(evidence._tag === "Left" && evidence.left.message).to.contain(`run evidence ${first.runId}`);
    });
  });
});
