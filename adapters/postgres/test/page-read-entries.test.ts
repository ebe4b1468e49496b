import { anAcceptance, type aQueuedRun, seedOwnerWithDataset } from "@gleaner/conformance";
import {
  decodesAsItIs,
  type RunAcceptance,
  type RunRecord,
  type SourceObservation,
  StoredExtraction,
  Storage,
  storedDecoder,
} from "@gleaner/core";
import { expect } from "chai";
import * as Either from "effect/Either";
import { type PageReadRow, storedExtraction } from "../src/page-reads.js";
import { aClaimedRun, aStoreAndClientOnItsOwnSchema, whenPostgresReachable } from "./support.js";

// A page read's extraction repeats its observation's entries (the excerpts); when the acceptance
// stores that observation, the extraction is kept without them (decision 0025) and read whole.
await whenPostgresReachable("postgres store: page reads share their observation's entries", (url) => {
  describe("postgres store: page reads share their observation's entries", () => {
    // Stored observations are rewritten behind the store's back here: it keeps none (decision 0035).
    const { schema, run, client } = aStoreAndClientOnItsOwnSchema(url, { pageCacheMegabytes: 0 });

    const pageUrl = "http://127.0.0.1/page-1";
    const entries = [{ id: "0", excerpt: "<article>A Light in the Attic</article>", truncated: false }];
    const observationOf = (running: RunRecord): SourceObservation => ({
      id: globalThis.crypto.randomUUID() as SourceObservation["id"],
      sourceUrl: pageUrl,
      observedAt: running.queuedAt,
      contentDigest: "sha256:ab",
      entries,
      datasetId: running.datasetId,
      runId: running.id,
      pageKey: pageUrl,
      method: "deterministic",
    });
    /** An accepted run that read the page: parsed (its entries given) or reused. */
    const accept = async (
      dataset: Parameters<typeof aQueuedRun>[0],
      key: string,
      page: { readonly entries: typeof entries; readonly reused: boolean },
    ) => {
      const storage = await run(Storage);
      const running = await run(aClaimedRun(dataset));
      const observation = observationOf(running);
      const acceptance: RunAcceptance = {
        ...anAcceptance(running, 1, [key]),
        observations: page.reused ? [] : [observation],
        pageReads: {
          recipe: "recipe-1",
          pages: [
            {
              url: pageUrl,
              finalUrl: pageUrl,
              sha256: "ab",
              contentType: "text/html",
              etag: null,
              lastModified: null,
              extraction: { records: [{ index: 0, rowKey: key, cells: [] }], entries: page.entries, next: null },
              reused: page.reused,
              body: "<p>page</p>",
            },
          ],
        },
      };
      expect((await run(storage.acceptRun(acceptance)))._tag).to.equal("Accepted");
      return observation;
    };
    const stored = async (datasetId: string) =>
      (
        await client.query<{ has_entries: boolean; entries_observation_id: string | null }>(
          `select extraction::jsonb ? 'entries' as has_entries, entries_observation_id
             from "${schema}".page_reads where dataset_id = $1`,
          [datasetId],
        )
      ).rows[0];
    const readBack = async (datasetId: string) => {
      const storage = await run(Storage);
      const reads = await run(storage.acceptedReads(datasetId as never));
      expect(reads.map((r) => r.url)).to.deep.equal([pageUrl]);
      return reads[0]!.extraction;
    };

    it("keeps a parsed page's extraction without the entries its observation holds, and reads it whole", async () => {
      const { dataset } = await run(seedOwnerWithDataset(10));
      // The engine hands the store the very entries array in both places.
      const observation = await accept(dataset, "first", { entries, reused: false });
      expect(await stored(dataset.id)).to.deep.equal({ has_entries: false, entries_observation_id: observation.id });
      expect(await readBack(dataset.id)).to.deep.equal({
        records: [{ index: 0, rowKey: "first", cells: [] }],
        entries,
        next: null,
      });

      // A re-run that reused the page keeps the stored extraction and its observation.
      await accept(dataset, "second", { entries, reused: true });
      expect(await stored(dataset.id)).to.deep.equal({ has_entries: false, entries_observation_id: observation.id });
      expect((await readBack(dataset.id))?.entries).to.deep.equal(entries);
    });

    // Decision 0032: the store reads the observation whole and takes its entries itself, as
    // `document->'entries'` did: an observation without them (or not an object) gives none.
    it("reads an extraction kept without entries as none when its observation holds none", async () => {
      const { dataset } = await run(seedOwnerWithDataset(10));
      const observation = await accept(dataset, "first", { entries, reused: false });
      for (const document of [{ id: observation.id }, { id: observation.id, entries: null }, [entries]]) {
        await client.query(`update "${schema}".observations set document_text = $2 where id = $1`, [
          observation.id,
          JSON.stringify(document),
        ]);
        expect(await readBack(dataset.id), JSON.stringify(document)).to.equal(null);
      }
    });

    // Decision 0032: only an extraction in StoredExtraction's key order is taken as it is.
    it("puts a shared extraction's entries back in StoredExtraction's key order, so it decodes as it is", async () => {
      const { dataset } = await run(seedOwnerWithDataset(10));
      await accept(dataset, "first", { entries, reused: false });
      const [row] = (
        await client.query<PageReadRow>(
          `select r.extraction, coalesce(o.document_text, o.document::text)::json as observation, r.records_key,
                  coalesce(k.records_text, k.records::text)::json as records
             from "${schema}".page_reads r join "${schema}".observations o on o.id = r.entries_observation_id
             join "${schema}".page_records k on k.key = r.records_key
            where r.dataset_id = $1`,
          [dataset.id],
        )
      ).rows;
      expect(decodesAsItIs(StoredExtraction, storedExtraction(row!))).to.equal(true);
    });

    it("keeps an extraction's own entries when they are not an observation's it stores", async () => {
      const { dataset } = await run(seedOwnerWithDataset(10));
      await accept(dataset, "own", {
        entries: entries.map((e) => ({ ...e, excerpt: `${e.excerpt}!` })),
        reused: false,
      });
      expect(await stored(dataset.id)).to.deep.equal({ has_entries: true, entries_observation_id: null });
      expect((await readBack(dataset.id))?.entries[0]?.excerpt).to.equal(`${entries[0]!.excerpt}!`);
    });

    // Rolling deploys: processes built before migration 0013 share the database for a while.
    it("stores a shared extraction in a form a process built before 0013 refuses, so it parses the page", async () => {
      const { dataset } = await run(seedOwnerWithDataset(10));
      await accept(dataset, "first", { entries, reused: false });
      // Such a process reads the extraction column alone and decodes it as the store does (acceptedReads):
      // an extraction it cannot decode is no extraction, and the engine parses the page (engine/reuse.ts).
      const [row] = (
        await client.query<{ extraction: unknown }>(
          `select extraction from "${schema}".page_reads where dataset_id = $1`,
          [dataset.id],
        )
      ).rows;
      const decoded = storedDecoder(StoredExtraction, "PostgreSQL", "page extraction")(row?.extraction, pageUrl);
      expect(Either.isLeft(decoded), "an extraction without entries is not a page's extraction").to.equal(true);
    });

    it("reads the entries of an extraction a process built before 0013 rewrote, not its former observation's", async () => {
      const { dataset } = await run(seedOwnerWithDataset(10));
      const observation = await accept(dataset, "first", { entries, reused: false });
      // That process's upsert replaces the extraction whole and leaves entries_observation_id as it was.
      const rewritten = [{ id: "0", excerpt: "<article>Tipping the Velvet</article>", truncated: false }];
      await client.query(`update "${schema}".page_reads set extraction = $2::json where dataset_id = $1`, [
        dataset.id,
        JSON.stringify({ records: [{ index: 0, rowKey: "first", cells: [] }], entries: rewritten, next: null }),
      ]);
      expect(await stored(dataset.id)).to.deep.equal({ has_entries: true, entries_observation_id: observation.id });
      expect((await readBack(dataset.id))?.entries).to.deep.equal(rewritten);
    });
  });
});
