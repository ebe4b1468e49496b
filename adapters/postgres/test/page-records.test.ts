import { anAcceptance, type aQueuedRun, seedOwnerWithDataset } from "@gleaner/conformance";
import { type AcceptedRead, type RecordFact, type RunAcceptance, Storage, type StoredExtraction } from "@gleaner/core";
import { expect } from "chai";
import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import { aClaimedRun, aStoreAndClientOnItsOwnSchema, sentDuring, whenPostgresReachable } from "./support.js";

// Decision 0034: a page's records are stored once (page_records, by the digest of their JSON); the
// page read and the facts of every run that read them name them. The facts read back are the facts
// accepted, whichever way they were stored.
await whenPostgresReachable("postgres store: a page's records stored once for its page read and run facts", (url) => {
  describe("postgres store: a page's records stored once for its page read and run facts", () => {
    const { schema, run, client } = aStoreAndClientOnItsOwnSchema(url);

    const site = "http://127.0.0.1/books";
    const fieldIds = [globalThis.crypto.randomUUID(), globalThis.crypto.randomUUID()];
    /** A page's records: awkward text, a number, a missing value with its reason. */
    const recordsOf = (page: number): StoredExtraction["records"] =>
      [0, 1, 2].map((index) => ({
        index,
        rowKey: index === 2 ? null : `${site}/book-${page}-${index}`,
        cells: [
          [
            fieldIds[0]!,
            `Tab\there "quoted" ünï ✓ ${page}.${index}`,
            null,
            ` Tab\there "quoted" ünï ✓ ${page}.${index} `,
          ],
          index === 1
            ? [fieldIds[1]!, null, "not_found", null]
            : [fieldIds[1]!, 51.77 + index, null, `£${51.77 + index}`],
        ],
      }));
    const pageUrls = [`${site}/page-1.html`, `${site}/page-2.html`, `${site}/page-3.html`];
    const factsOf = (extractions: ReadonlyArray<StoredExtraction>): RecordFact[] =>
      extractions.flatMap((extraction, page) =>
        extraction.records.map((r) => ({
          rowKey: r.rowKey,
          pageUrl: pageUrls[page]!,
          index: r.index,
          cells: r.cells.map(([fieldId, value, missingReason, raw]) => ({ fieldId, value, missingReason, raw })),
        })),
      );
    /** An accepted run that read three pages (the last yielding no record), parsed or reused. */
    const acceptance = (
      running: Parameters<typeof anAcceptance>[0],
      extractions: ReadonlyArray<StoredExtraction>,
      reused: boolean,
      facts: ReadonlyArray<RecordFact> = factsOf(extractions),
    ): RunAcceptance => {
      const base = anAcceptance(running, 1, []);
      return {
        ...base,
        evidence: { ...base.evidence, facts },
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
    const parsed = (): StoredExtraction[] => [
      { records: recordsOf(1), entries: [], next: pageUrls[1]! },
      { records: recordsOf(2), entries: [], next: pageUrls[2]! },
      { records: [], entries: [], next: null },
    ];
    const accepted = async (dataset: Parameters<typeof aQueuedRun>[0], make: (r: any) => RunAcceptance) => {
      const storage = await run(Storage);
      const running = await run(aClaimedRun(dataset));
      const given = make(running);
      expect((await run(storage.acceptRun(given)))._tag).to.equal("Accepted");
      return { runId: running.id, given };
    };
    const factsColumn = async (runId: string) =>
      (
        await client.query<{ facts: unknown; bytes: number }>(
          `select facts, octet_length(facts::text) as bytes from "${schema}".run_evidence where run_id = $1`,
          [runId],
        )
      ).rows[0]!;
    const count = async (table: string) =>
      Number((await client.query(`select count(*) from "${schema}".${table}`)).rows[0].count);
    const evidenceFacts = async (runId: string) =>
      Option.getOrThrow(await run(Effect.flatMap(Storage, (s) => s.getRunEvidence(runId as never)))).facts;
    const keptReads = async (datasetId: string): Promise<ReadonlyArray<AcceptedRead>> =>
      [...(await run(Effect.flatMap(Storage, (s) => s.acceptedReads(datasetId as never))))].sort((a, b) =>
        a.url < b.url ? -1 : 1,
      );

    it("stores each page's records once, names them from the page read and the run's facts, and reads both back as accepted", async () => {
      const { dataset } = await run(seedOwnerWithDataset(10));
      const recordsBefore = await count("page_records");
      const { runId, given } = await accepted(dataset, (running) => acceptance(running, parsed(), false));
      // Two pages with records and one without: three distinct record lists.
      expect((await count("page_records")) - recordsBefore).to.equal(3);
      const stored = await factsColumn(runId);
      expect(stored.facts).to.have.property("pages").with.length(2);
      expect(stored.bytes, "the facts name their pages' records").to.be.below(400);
      expect(await evidenceFacts(runId)).to.deep.equal(given.evidence.facts);
      const reads = await keptReads(dataset.id);
      expect(reads.map((r) => r.extraction)).to.deep.equal(parsed());
      const { rows } = await client.query(
        `select extraction::text as extraction, records_key from "${schema}".page_reads where dataset_id = $1 order by url`,
        [dataset.id],
      );
      for (const row of rows) {
        expect(JSON.parse(row.extraction)).to.not.have.property("records");
        expect(row.records_key).to.match(/^[0-9a-f]{64}$/);
      }
    });

    it("an unchanged re-run sends no records and names the ones its pages' kept reads had", async () => {
      const { dataset } = await run(seedOwnerWithDataset(10));
      const first = await accepted(dataset, (running) => acceptance(running, parsed(), false));
      const kept = await keptReads(dataset.id);
      const recordsBefore = await count("page_records");
      let again: Awaited<ReturnType<typeof accepted>> | undefined;
      const sent = await sentDuring(async () => {
        // The engine hands a reused page's kept extraction back as the store answered it.
        again = await accepted(dataset, (running) =>
          acceptance(
            running,
            kept.map((read) => read.extraction!),
            true,
          ),
        );
      });
      expect(sent.filter((text) => text.includes("page_records"))).to.deep.equal([]);
      expect(await count("page_records")).to.equal(recordsBefore);
      expect((await factsColumn(again!.runId)).facts).to.deep.equal((await factsColumn(first.runId)).facts);
      expect(await evidenceFacts(again!.runId)).to.deep.equal(first.given.evidence.facts);
      expect(await evidenceFacts(first.runId)).to.deep.equal(first.given.evidence.facts);
    });

    it("stores facts whole when they are anything but exactly the pages' records", async () => {
      const { dataset } = await run(seedOwnerWithDataset(10));
      const exact = factsOf(parsed());
      const entity = { kind: "book", anchor: "a", aliases: [], pages: [], conflicts: [] };
      const variants: ReadonlyArray<readonly [string, ReadonlyArray<RecordFact>]> = [
        ["a fact more", [...exact, { ...exact[0]!, index: 9 }]],
        ["a fact fewer", exact.slice(1)],
        [
          "a raw text changed",
          exact.map((f, i) => (i === 1 ? { ...f, cells: [{ ...f.cells[0]!, raw: "other" }, f.cells[1]!] } : f)),
        ],
        ["a fact with an entity (research)", exact.map((f, i) => (i === 0 ? { ...f, entity } : f))],
        [
          "a page's facts under another URL",
          exact.map((f, i) => (i === 4 ? { ...f, pageUrl: `${site}/elsewhere` } : f)),
        ],
      ];
      for (const [what, facts] of variants) {
        const { runId } = await accepted(dataset, (running) => acceptance(running, parsed(), false, facts));
        expect(Array.isArray((await factsColumn(runId)).facts), what).to.equal(true);
        expect(await evidenceFacts(runId), what).to.deep.equal(facts);
      }
    });

    // Rolling deploys and upgrades: what was stored before migration 0016 keeps its records inline.
    it("reads page reads and facts stored with their records inline, and names those records once a run reuses them", async () => {
      const { dataset } = await run(seedOwnerWithDataset(10));
      const first = await accepted(dataset, (running) => acceptance(running, parsed(), false));
      await client.query(
        `update "${schema}".page_reads r set extraction = json_build_object('records', coalesce(k.records_text, k.records::text)::json, 'entries', '[]'::json,
                                               'next', r.extraction->'next'), records_key = null
           from "${schema}".page_records k where k.key = r.records_key and r.dataset_id = $1`,
        [dataset.id],
      );
      await client.query(`update "${schema}".run_evidence set facts = $2::json where run_id = $1`, [
        first.runId,
        JSON.stringify(first.given.evidence.facts),
      ]);
      await client.query(`delete from "${schema}".page_records`);
      expect(await evidenceFacts(first.runId)).to.deep.equal(first.given.evidence.facts);
      const kept = await keptReads(dataset.id);
      expect(kept.map((read) => read.extraction)).to.deep.equal(parsed());
      const again = await accepted(dataset, (running) =>
        acceptance(
          running,
          kept.map((read) => read.extraction!),
          true,
        ),
      );
      expect(await count("page_records")).to.equal(3);
      expect((await factsColumn(again.runId)).facts).to.have.property("pages");
      expect(await evidenceFacts(again.runId)).to.deep.equal(first.given.evidence.facts);
    });

    it("keeps only the newest accepted run's page reads: a page it did not read is no longer kept", async () => {
      const { dataset } = await run(seedOwnerWithDataset(10));
      await accepted(dataset, (running) => acceptance(running, parsed(), false));
      expect((await keptReads(dataset.id)).map((read) => read.url)).to.deep.equal(pageUrls);
      const first = parsed()[0]!;
      const second = await accepted(dataset, (running) =>
        acceptance(running, [{ ...first, next: null }], false, factsOf([first])),
      );
      const kept = await keptReads(dataset.id);
      expect(kept.map((read) => [read.url, read.runId])).to.deep.equal([[pageUrls[0], second.runId]]);
    });

    it("fails to read facts whose records are gone, naming the run, instead of answering others", async () => {
      const { dataset } = await run(seedOwnerWithDataset(10));
      const { runId } = await accepted(dataset, (running) => acceptance(running, parsed(), false));
      await client.query(`delete from "${schema}".page_records`);
      const read = await run(Effect.either(Effect.flatMap(Storage, (s) => s.getRunEvidence(runId as never))));
      expect(read._tag).to.equal("Left");
      expect(String(read._tag === "Left" && read.left.message)).to.match(/run evidence/);
    });
  });
});
