import {
  type StorageFailure,
  type AcceptedRead,
  type RunAcceptance,
  StoredExtraction,
  storedDecoder,
} from "@gleaner/core";
import * as Effect from "effect/Effect";
import * as Either from "effect/Either";
import type { Db, Transaction } from "./db.js";
import { isUuid } from "./db.js";
import { type PageRecords, pageRecordsOf, readFromPageRecords } from "./page-records.js";

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
  /** page_records' key of the extraction's records, when it was kept without them (migration 0016). */
  readonly records_key: string | null;
  /** Those records (null when there is no key, or no such page_records row). */
  readonly records: unknown;
  /** The body as text, when the server could send it so (see acceptedReads); else `body`. */
  readonly body_text: string | null;
  readonly body: Buffer | null;
}

/**
 * A stored extraction whole again: its entries are its observation's when it was kept without them,
 * its records page_records' when it names them (decision 0034). One that holds its own entries or
 * records keeps them, whatever the columns say: a process built before migration 0013 rewrites the
 * extraction without clearing them. One whose entries or records are gone stays without them, and
 * the decoder refuses it: the page is parsed.
 */
export const storedExtraction = ({
  extraction,
  observation,
  records_key,
  records,
}: Pick<PageReadRow, "extraction" | "observation" | "records_key" | "records">) => {
  if (extraction === null || typeof extraction !== "object") return extraction;
  const kept = extraction as Record<string, unknown>;
  const observed = "entries" in kept ? kept.entries : entriesOf(observation);
  const named = "records" in kept ? kept.records : records_key === null ? null : records;
  if (observed === null || named === null) return extraction;
  // In StoredExtraction's key order, for storedDecoder's fast path (decision 0032). Other keys would
  // not survive decoding anyway, and a missing one fails it all the same.
  return { records: named, entries: observed, next: kept.next };
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
  const extraction = stored === null ? null : Either.getOrNull(decodeExtraction(stored, row.url));
  // A run that reuses this page hands these very records back: their key is then known.
  if (extraction !== null && row.records_key !== null && extraction.records === row.records) {
    readFromPageRecords(extraction.records, row.records_key);
  }
  return {
    runId: row.run_id,
    recipe: row.recipe,
    url: row.url,
    finalUrl: row.final_url,
    sha256: row.sha256,
    contentType: row.content_type,
    etag: row.etag,
    lastModified: row.last_modified,
    extraction,
    body: row.body_text ?? (row.body === null ? null : row.body.toString("utf8")),
  };
};

/**
 * Whether the server sends a body as text (its UTF-8 bytes as they are) rather than as bytea, which
 * it sends hex-encoded: twice the bytes, decoded by pg and then as UTF-8 again (~5 ms of a 50-page
 * re-run's 2 MB). A body is the UTF-8 of a JavaScript string, so it converts unless it holds a NUL
 * byte, which text cannot hold; and only a UTF8 database takes it without converting.
 */
const asText = `(current_setting('server_encoding') = 'UTF8' and position(decode('00', 'hex') in b.body) = 0)`;

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
                  r.extraction, o.document as observation, r.records_key, k.records,
                  case when ${asText} then convert_from(b.body, 'UTF8') end as body_text,
                  case when not ${asText} then b.body end as body
             from page_reads r left join page_bodies b on b.sha256 = r.sha256
             left join observations o on o.id = r.entries_observation_id
             left join page_records k on k.key = r.records_key
            where r.dataset_id = $1`,
          [datasetId],
        )
        .pipe(Effect.map((rows) => rows.map(toAcceptedRead)));

/**
 * Replaces the dataset's page reads with the accepted run's, inside the acceptance transaction. A
 * reused page sends no extraction (its row keeps the stored one), so an unchanged re-run writes
 * only each page's run id and validators. A parsed page's extraction is sent without its records,
 * which page_records keeps by `records_key` (decision 0034), and, when its entries are those of an
 * observation this acceptance stores (the very array, as the engine builds both), without them too,
 * naming that observation (migration 0013). `written` is `pageReadsToWrite`'s, encoded apart so the
 * host can encode it while the server works (decision 0033). Sends both statements
 * (`Transaction.send`) and answers the Effect awaiting them.
 */
export const sendPageReads = (
  tx: Transaction,
  { run, pageReads }: RunAcceptance,
  written: PageReadsWrite | null,
): Effect.Effect<Effect.Effect<void, StorageFailure>> =>
  pageReads === undefined || written === null
    ? Effect.succeed(Effect.void)
    : Effect.map(
        Effect.all([
          tx.send("delete from page_reads where dataset_id = $1 and url <> all($2::text[])", [
            run.datasetId,
            pageReads.pages.map((p) => p.url),
          ]),
          tx.send(
            `insert into page_reads (dataset_id, url, run_id, recipe, final_url, sha256, content_type, etag,
                                     last_modified, extraction, entries_observation_id, records_key)
             select $1, p.url, $2, $3, p.final_url, p.sha256, p.content_type, p.etag, p.last_modified, p.extraction,
                    p.entries_observation_id, p.records_key
               from json_to_recordset($4::json) as p(url text, final_url text, sha256 text, content_type text,
                    etag text, last_modified text, extraction json, entries_observation_id uuid, records_key text)
             on conflict (dataset_id, url) do update
             set run_id = excluded.run_id, recipe = excluded.recipe, final_url = excluded.final_url,
                 sha256 = excluded.sha256, content_type = excluded.content_type, etag = excluded.etag,
                 last_modified = excluded.last_modified,
                 extraction = coalesce(excluded.extraction, page_reads.extraction),
                 entries_observation_id = case when excluded.extraction is null
                                               then page_reads.entries_observation_id
                                               else excluded.entries_observation_id end,
                 records_key = case when excluded.extraction is null
                                    then page_reads.records_key
                                    else excluded.records_key end`,
            [run.datasetId, run.id, pageReads.recipe, written.parameter],
          ),
        ]),
        (sent) => Effect.all(sent, { discard: true }),
      );

/** What an acceptance writes of its page reads, encoded before anything is sent. */
export interface PageReadsWrite {
  /** sendPageReads' recordset. */
  readonly parameter: string;
  /** Each page's records key, by position: what the run's facts name (page-records.ts). */
  readonly keys: ReadonlyArray<string>;
  /** The records page_records may lack: those of every page whose key was not read from it. */
  readonly records: ReadonlyArray<PageRecords>;
}

/**
 * The acceptance's page reads as sendPageReads writes them (null when it keeps none): a reused page
 * without extraction, a parsed one without its records and without the entries it shares.
 */
export const pageReadsToWrite = ({ pageReads, observations }: RunAcceptance): PageReadsWrite | null => {
  if (pageReads === undefined) return null;
  const observationOf = new Map(observations.map((o) => [o.entries, o.id]));
  const keys: string[] = [];
  const records: PageRecords[] = [];
  const parameter = JSON.stringify(
    pageReads.pages.map((p) => {
      const { key, json } = pageRecordsOf(p.extraction.records);
      keys.push(key);
      if (json !== null) records.push({ key, json });
      const observationId = p.reused ? undefined : observationOf.get(p.extraction.entries);
      const { next, entries } = p.extraction;
      return {
        url: p.url,
        final_url: p.finalUrl,
        sha256: p.sha256,
        content_type: p.contentType,
        etag: p.etag,
        last_modified: p.lastModified,
        extraction: p.reused ? null : observationId === undefined ? { entries, next } : { next },
        entries_observation_id: observationId ?? null,
        records_key: key,
      };
    }),
  );
  return { parameter, keys, records };
};
