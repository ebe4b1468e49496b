import { anAcceptance, seedOwnerWithDataset } from "@gleaner/conformance";
import {
  type DatasetRecord,
  type RunAcceptance,
  type RunRecord,
  type SourceObservation,
  Storage,
  type StoredExtraction,
} from "@gleaner/core";
import { expect } from "chai";
import * as Effect from "effect/Effect";
import * as ManagedRuntime from "effect/ManagedRuntime";
import { PostgresStoreLive } from "../src/index.js";
import { makeContentCache } from "../src/content-cache.js";
import { aClaimedRun, sentDuring, twoStoresOnOneSchema, whenPostgresReachable } from "./support.js";

// Decision 0035: a process keeps the content of the pages re-runs reuse (bodies, observations'
// entries, page records), each immutable under its key; what it answers from them is what the
// database answers.

const pageUrl = "http://127.0.0.1/books/page-1.html";
const fieldId = globalThis.crypto.randomUUID();

/** An accepted run that read one page, parsed: its body, its observation (entries) and its records. */
const acceptanceOf = (run: RunRecord, body: string, sha256: string): RunAcceptance => {
  const base = anAcceptance(run, 1, []);
  const entries = [{ id: "0", excerpt: `<p>Tab\there "ünï" ✓ ${sha256.slice(0, 4)}</p>`, truncated: false }];
  const observation: SourceObservation = {
    id: globalThis.crypto.randomUUID() as SourceObservation["id"],
    sourceUrl: pageUrl,
    observedAt: new Date().toISOString(),
    contentDigest: `sha256:${sha256}`,
    entries,
    datasetId: run.datasetId,
    runId: run.id,
  };
  const extraction: StoredExtraction = {
    records: [{ index: 0, rowKey: `${pageUrl}#0`, cells: [[fieldId, "Tab\there ✓", null, " Tab\there ✓ "]] }],
    entries,
    next: null,
  };
  const [artifact] = base.evidence.artifacts;
  return {
    ...base,
    observations: [observation],
    evidence: { ...base.evidence, artifacts: [{ ...artifact!, url: pageUrl, sha256, body, size: body.length }] },
    pageReads: {
      recipe: "recipe-1",
      pages: [
        {
          url: pageUrl,
          finalUrl: pageUrl,
          sha256,
          contentType: "text/html",
          etag: null,
          lastModified: null,
          extraction,
          reused: false,
          body,
        },
      ],
    },
  };
};

await whenPostgresReachable("postgres store: the content of kept reads, kept in process", (url) => {
  describe("postgres store: the content of kept reads, kept in process (decision 0035)", () => {
    // Another process on the same database that keeps nothing: it answers from the database alone.
    const { schema, first: keeping, second: reading, client } = twoStoresOnOneSchema(url, { pageCacheMegabytes: 0 });
    const acceptedReads = (runtime: typeof keeping, dataset: DatasetRecord) =>
      runtime.runPromise(Effect.flatMap(Storage, (storage) => storage.acceptedReads(dataset.id)));
    const accepted = async (body: string) => {
      const { dataset } = await keeping.runPromise(seedOwnerWithDataset(10));
      const sha256 = globalThis.crypto.randomUUID().replaceAll("-", "").repeat(2);
      const outcome = await keeping.runPromise(
        Effect.gen(function* () {
          const run = yield* aClaimedRun(dataset);
          return yield* (yield* Storage).acceptRun(acceptanceOf(run, body, sha256));
        }),
      );
      expect(outcome._tag).to.equal("Accepted");
      return dataset;
    };

    it("answers the reads its own acceptance stored from what it keeps, as the database does", async () => {
      const dataset = await accepted("<p>Tab\there ünï ✓ 𝄞</p>");
      let kept: Awaited<ReturnType<typeof acceptedReads>> = [];
      const sent = await sentDuring(async () => {
        kept = await acceptedReads(keeping, dataset);
      });
      expect(sent).to.have.length(1);
      expect(sent[0]).to.match(/^select r.run_id,/);
      const read = await acceptedReads(reading, dataset);
      expect(read[0]?.extraction?.entries).to.have.length(1);
      expect(read[0]?.body).to.equal("<p>Tab\there ünï ✓ 𝄞</p>");
      expect(kept).to.deep.equal(read);
    });

    it("reads content it does not keep once, then keeps it", async () => {
      const dataset = await accepted("<p>another page</p>");
      const fresh = ManagedRuntime.make(PostgresStoreLive({ url, schema, poolSize: 3 }));
      try {
        let first: Awaited<ReturnType<typeof acceptedReads>> = [];
        const firstSent = await sentDuring(async () => {
          first = await acceptedReads(fresh, dataset);
        });
        expect(firstSent.length).to.be.greaterThan(1);
        const again = await sentDuring(async () => {
          expect(await acceptedReads(fresh, dataset)).to.deep.equal(first);
        });
        expect(again).to.have.length(1);
        expect(first).to.deep.equal(await acceptedReads(reading, dataset));
      } finally {
        await fresh.dispose();
      }
    });

    // Migration 0017: documents and records written before it sit in json columns and read the same.
    it("reads observations and page records kept as json (before migration 0017) as it reads text ones", async () => {
      const dataset = await accepted("<p>kept as json</p>");
      const [{ id }] = (
        await client.query(
          `select o.id from "${schema}".observations o join "${schema}".page_reads r on r.entries_observation_id = o.id
            where r.dataset_id = $1`,
          [dataset.id],
        )
      ).rows;
      const read = () =>
        reading.runPromise(
          Effect.gen(function* () {
            const storage = yield* Storage;
            const reads = yield* storage.acceptedReads(dataset.id);
            const evidence = yield* storage.getRunEvidence(reads[0]!.runId as never);
            const observations = yield* storage.getObservations([id]);
            return { reads, evidence, observations };
          }),
        );
      const asText = await read();
      expect(asText.observations).to.have.length(1);
      expect(asText.reads[0]?.extraction?.records).to.have.length(1);
      await client.query(
        `update "${schema}".observations set document = document_text::json, document_text = null where id = $1`,
        [id],
      );
      await client.query(
        `update "${schema}".page_records set records = records_text::json, records_text = null where records_text is not null`,
      );
      expect(await read()).to.deep.equal(asText);
    });

    it("answers a kept body with a NUL byte (stored as bytea, read back as bytes) as the database does", async () => {
      const dataset = await accepted("<p>a\u0000b</p>");
      const [kept] = await acceptedReads(keeping, dataset);
      const [read] = await acceptedReads(reading, dataset);
      expect(read?.body).to.equal("<p>a\u0000b</p>");
      expect(kept).to.deep.equal(read);
    });

    it("does not keep a body that would not read back as it was (a lone surrogate)", async () => {
      const dataset = await accepted("<p>\uD800 lone</p>");
      const [kept] = await acceptedReads(keeping, dataset);
      const [read] = await acceptedReads(reading, dataset);
      expect(read?.body).to.equal("<p>\uFFFD lone</p>");
      expect(kept?.body).to.equal(read?.body);
    });
  });
});

describe("postgres store: the page cache's capacity", () => {
  it("makes room from the least recently used, a kept value counted as twice its text", () => {
    const cache = makeContentCache(1);
    const third = "x".repeat(340 * 1024);
    cache.keepText("a", third);
    cache.keepText("b", third);
    expect(cache.has("a") && cache.has("b")).to.equal(true);
    // "a" used last: "b" is the least recently used, and makes room for a value of twice a third.
    expect(cache.text("a")).to.equal(third);
    const value = { records: [third] };
    cache.keepValue("c", value, 2 * third.length);
    expect([cache.has("a"), cache.has("b"), cache.has("c")]).to.deep.equal([true, false, true]);
    expect(cache.json("c")).to.equal(value);
    // One more third's worth: "a" is the least recently used now.
    cache.keepText("d", third);
    expect([cache.has("a"), cache.has("c"), cache.has("d")]).to.deep.equal([false, true, true]);
    // A text is not a value, nor a value a text.
    expect(cache.json("a")).to.equal(undefined);
    expect(cache.text("c")).to.equal(undefined);
  });

  it("keeps no text over its capacity, and nothing at 0", () => {
    const cache = makeContentCache(1);
    cache.keepText("big", "x".repeat(1024 * 1024 + 1));
    cache.keepValue("bigger", {}, 1024 * 1024 + 1);
    expect(cache.has("big") || cache.has("bigger")).to.equal(false);
    const off = makeContentCache(0);
    expect(off.enabled).to.equal(false);
    off.keepText("a", "1");
    expect(off.has("a")).to.equal(false);
  });
});
