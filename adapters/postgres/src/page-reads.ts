import {
  type StorageFailure,
  type AcceptedRead,
  type PageReadsToKeep,
  type RunAcceptance,
  StoredExtraction,
  storedDecoder,
} from "@gleaner/core";
import * as Effect from "effect/Effect";
import * as Either from "effect/Either";
import type { Db, Transaction } from "./db.js";
import { isUuid } from "./db.js";

export interface PageReadRow {
  readonly run_id: string;
  readonly recipe: string;
  readonly url: string;
  readonly final_url: string;
  readonly sha256: string;
  readonly content_type: string;
  readonly etag: string | null;
  readonly last_modified: string | null;
  readonly extraction: unknown;
  /** The observation whose entries the extraction's are, when it was kept without them. */
  readonly observation: unknown;
  readonly body: Buffer | null;
}

/**
 * A stored extraction whole again: its entries are its observation's when it was kept without them.
 * One that holds its own entries keeps them, whatever entries_observation_id says: a process built
 * before migration 0013 rewrites the extraction without clearing that column. One without entries
 * whose observation is gone stays without them, and the decoder refuses it: the page is parsed.
 */
export const storedExtraction = ({ extraction, observation }: Pick<PageReadRow, "extraction" | "observation">) => {
  const observed = entriesOf(observation);
  if (extraction === null || observed === null || "entries" in (extraction as object)) return extraction;
  // In StoredExtraction's key order, for storedDecoder's fast path (decision 0032). Other keys would
  // not survive decoding anyway, and a missing one fails it all the same.
  const { records, next } = extraction as Record<string, unknown>;
  return { records, entries: observed, next };
};

/**
 * An observation's entries, null when it has none: what `document->'entries'` answers, read here
 * because PostgreSQL scans the whole json text for it (~10 ms of a run's 50 reads; decision 0032).
 */
const entriesOf = (document: unknown): unknown =>
  typeof document === "object" && document !== null && !Array.isArray(document) && Object.hasOwn(document, "entries")
    ? ((document as { entries: unknown }).entries ?? null)
    : null;

const decodeExtraction = storedDecoder(StoredExtraction, "PostgreSQL", "page extraction");

/** A kept read as the port gives it. */
const toAcceptedRead = (row: PageReadRow): AcceptedRead => {
  const stored = storedExtraction(row);
  return {
    runId: row.run_id,
    recipe: row.recipe,
    url: row.url,
    finalUrl: row.final_url,
    sha256: row.sha256,
    contentType: row.content_type,
    etag: row.etag,
    lastModified: row.last_modified,
    extraction: stored === null ? null : Either.getOrNull(decodeExtraction(stored, row.url)),
    body: row.body === null ? null : row.body.toString("utf8"),
  };
};

/**
 * The newest accepted run's reads of the dataset, each with its body from page_bodies (when one
 * was kept), in one statement (decision 0032). An extraction that no longer decodes (written by
 * another version) answers as none: core parses that page.
 */
export const acceptedReads = (db: Db, datasetId: string): Effect.Effect<ReadonlyArray<AcceptedRead>, StorageFailure> =>
  !isUuid(datasetId)
    ? Effect.succeed([])
    : db
        .query<PageReadRow>(
          `select r.run_id, r.recipe, r.url, r.final_url, r.sha256, r.content_type, r.etag, r.last_modified,
                  r.extraction, o.document as observation, b.body
             from page_reads r left join page_bodies b on b.sha256 = r.sha256
             left join observations o on o.id = r.entries_observation_id
            where r.dataset_id = $1`,
          [datasetId],
        )
        .pipe(Effect.map((rows) => rows.map(toAcceptedRead)));

/**
 * Replaces the dataset's page reads with the accepted run's, inside the acceptance transaction. A
 * reused page sends no extraction (its row keeps the stored one), so an unchanged re-run writes
 * only each page's run id and validators. An extraction whose entries are those of an observation
 * this acceptance stores (the very array, as the engine builds both) is sent without them and
 * names that observation instead (migration 0013): the excerpts are stored once. `parameter` is
 * `pageReadsParameter`'s, encoded apart so the host can encode it while the server works (decision
 * 0033). Sends both statements (`Transaction.send`) and answers the Effect awaiting them.
 */
export const sendPageReads = (
  tx: Transaction,
  { run, pageReads }: RunAcceptance,
  parameter: string | null,
): Effect.Effect<Effect.Effect<void, StorageFailure>> =>
  pageReads === undefined || parameter === null
    ? Effect.succeed(Effect.void)
    : Effect.map(
        Effect.all([
          tx.send("delete from page_reads where dataset_id = $1 and url <> all($2::text[])", [
            run.datasetId,
            pageReads.pages.map((p) => p.url),
          ]),
          tx.send(
            `insert into page_reads (dataset_id, url, run_id, recipe, final_url, sha256, content_type, etag,
                                     last_modified, extraction, entries_observation_id)
             select $1, p.url, $2, $3, p.final_url, p.sha256, p.content_type, p.etag, p.last_modified, p.extraction,
                    p.entries_observation_id
               from json_to_recordset($4::json) as p(url text, final_url text, sha256 text, content_type text,
                    etag text, last_modified text, extraction json, entries_observation_id uuid)
             on conflict (dataset_id, url) do update
             set run_id = excluded.run_id, recipe = excluded.recipe, final_url = excluded.final_url,
                 sha256 = excluded.sha256, content_type = excluded.content_type, etag = excluded.etag,
                 last_modified = excluded.last_modified,
                 extraction = coalesce(excluded.extraction, page_reads.extraction),
                 entries_observation_id = case when excluded.extraction is null
                                               then page_reads.entries_observation_id
                                               else excluded.entries_observation_id end`,
            [run.datasetId, run.id, pageReads.recipe, parameter],
          ),
        ]),
        (sent) => Effect.all(sent, { discard: true }),
      );

/** An extraction kept without its entries (they are its observation's): every other field as it is. */
const withoutEntries = ({ entries: _, ...kept }: StoredExtraction) => kept;

/**
 * sendPageReads' recordset (null when the acceptance keeps no page reads): a reused page without
 * extraction, a parsed one without the entries it shares.
 */
export const pageReadsParameter = ({ pageReads, observations }: RunAcceptance): string | null =>
  pageReads === undefined ? null : pagesParameter(pageReads.pages, observations);

const pagesParameter = (pages: PageReadsToKeep["pages"], observations: RunAcceptance["observations"]): string => {
  const observationOf = new Map(observations.map((o) => [o.entries, o.id]));
  return JSON.stringify(
    pages.map((p) => {
      const observationId = p.reused ? undefined : observationOf.get(p.extraction.entries);
      return {
        url: p.url,
        final_url: p.finalUrl,
        sha256: p.sha256,
        content_type: p.contentType,
        etag: p.etag,
        last_modified: p.lastModified,
        extraction: p.reused ? null : observationId === undefined ? p.extraction : withoutEntries(p.extraction),
        entries_observation_id: observationId ?? null,
      };
    }),
  );
};
