import {
  type AcceptedRead,
  type PageReadToKeep,
  type RunAcceptance,
  type StorageFailure,
  StoredExtraction,
  storedDecoder,
} from "@gleaner/core";
import * as Effect from "effect/Effect";
import * as Either from "effect/Either";
import { type Db, isUuid, type Sql, sendBatches, tableMapping } from "./db.js";

// page_reads (migration 0011): the page reads of each dataset's newest accepted run,
// with each page's extraction whole; their bodies are page_bodies', by digest.

interface PageReadRow {
  readonly run_id: string;
  readonly recipe: string;
  readonly url: string;
  readonly final_url: string;
  readonly sha256: string;
  readonly content_type: string;
  readonly etag: string | null;
  readonly last_modified: string | null;
  readonly extraction: unknown;
  readonly body: Buffer | null;
}

const decodeExtraction = storedDecoder(StoredExtraction, "PostgreSQL", "page extraction");

/**
 * The newest accepted run's reads of the dataset, with their bodies, in one statement. An extraction
 * that no longer decodes (written by another version) answers as none: core parses that page.
 */
export const acceptedReads = (db: Db, datasetId: string): Effect.Effect<ReadonlyArray<AcceptedRead>, StorageFailure> =>
  !isUuid(datasetId)
    ? Effect.succeed([])
    : Effect.map(
        db.query<PageReadRow>(
          `select r.run_id, r.recipe, r.url, r.final_url, r.sha256, r.content_type, r.etag, r.last_modified,
                  r.extraction, b.body
             from page_reads r left join page_bodies b on b.sha256 = r.sha256
            where r.dataset_id = $1`,
          [datasetId],
        ),
        (rows) =>
          rows.map(
            (row): AcceptedRead => ({
              runId: row.run_id,
              recipe: row.recipe,
              url: row.url,
              finalUrl: row.final_url,
              sha256: row.sha256,
              contentType: row.content_type,
              etag: row.etag,
              lastModified: row.last_modified,
              extraction: row.extraction === null ? null : Either.getOrNull(decodeExtraction(row.extraction, row.url)),
              body: row.body === null ? null : row.body.toString("utf8"),
            }),
          ),
      );

/**
 * Replaces the dataset's page reads with the accepted run's, after deleting the reads of URLs the
 * run did not read. A reused page sends no extraction (its row keeps the stored
 * one), so an unchanged re-run writes only each page's run id and validators. Sent (`Sql.send`).
 */
export const sendPageReads = (tx: Sql, { run, pageReads }: RunAcceptance) =>
  pageReads === undefined
    ? Effect.succeed(Effect.void)
    : Effect.gen(function* () {
        const gone = yield* tx.send("delete from page_reads where dataset_id = $1 and url <> all($2::text[])", [
          run.datasetId,
          pageReads.pages.map((p) => p.url),
        ]);
        const written = yield* sendBatches(
          tx,
          pageReadTable.batches(pageReads.pages, "$1"),
          (select) =>
            `insert into page_reads (dataset_id, run_id, recipe, ${pageReadTable.list})
             select $2, $3, $4, p.* from (${select}) p
             on conflict (dataset_id, url) do update
             set run_id = excluded.run_id, recipe = excluded.recipe, final_url = excluded.final_url,
                 sha256 = excluded.sha256, content_type = excluded.content_type, etag = excluded.etag,
                 last_modified = excluded.last_modified,
                 extraction = coalesce(excluded.extraction, page_reads.extraction)`,
          [run.datasetId, run.id, pageReads.recipe],
        );
        return Effect.zipRight(gone, written);
      });

/** A page read's columns; a reused page sends no extraction (its row keeps the stored one). */
const pageReadTable = tableMapping<PageReadToKeep>({
  url: ["text", (p) => p.url],
  final_url: ["text", (p) => p.finalUrl],
  sha256: ["text", (p) => p.sha256],
  content_type: ["text", (p) => p.contentType],
  etag: ["text", (p) => p.etag],
  last_modified: ["text", (p) => p.lastModified],
  extraction: ["json", (p) => (p.reused ? null : p.extraction)],
});
