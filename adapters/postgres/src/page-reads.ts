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
import { bodyKey, type ContentCache, observationKey, recordsKey, valueSize } from "./content-cache.js";
import { type PageRecords, pageRecordsOf, readFromPageRecords } from "./page-records.js";
import { observationDocument, pageRecordsText, parsedJson } from "./text-documents.js";

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

/**
 * Records and entries arrays this process knows to be an extraction's as decoded: those its own
 * acceptance wrote (core's objects, never read back: what a memory store would hand over) and
 * those it has decoded once (decision 0036). An extraction made of them is not checked again: the
 * check walks every record and entry (~5 ms of a 50-page re-run).
 */
const decodedParts = new WeakSet<object>();

/** Marks an acceptance's own records or entries arrays, kept in the content cache, as decoded. */
export const keptAsDecoded = (part: object) => {
  decodedParts.add(part);
};

const alreadyDecoded = (stored: unknown): stored is StoredExtraction => {
  if (typeof stored !== "object" || stored === null) return false;
  const { records, entries, next } = stored as Record<string, unknown>;
  return (
    Object.keys(stored).length === 3 &&
    typeof records === "object" &&
    records !== null &&
    decodedParts.has(records) &&
    typeof entries === "object" &&
    entries !== null &&
    decodedParts.has(entries) &&
    (next === null || typeof next === "string")
  );
};

/** The extraction `stored` decodes to (null when it does not); its parts known decoded from then on. */
const decodedExtraction = (stored: unknown, url: string): StoredExtraction | null => {
  if (alreadyDecoded(stored)) return stored;
  const extraction = Either.getOrNull(decodeExtraction(stored, url));
  // Decoded as itself: its arrays are the stored ones, as they decode.
  if (extraction !== null && extraction === stored) {
    decodedParts.add(extraction.records);
    decodedParts.add(extraction.entries);
  }
  return extraction;
};

/** A kept read as the port gives it. */
const toAcceptedRead = (row: PageReadRow): AcceptedRead => {
  const stored = storedExtraction(row);
  const extraction = stored === null ? null : decodedExtraction(stored, row.url);
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

/** A page read without its content: the keys of its body, entries and records. */
type KeptReadRow = Omit<PageReadRow, "observation" | "records" | "body_text" | "body"> & {
  readonly entries_observation_id: string | null;
  readonly has_body: boolean;
};

interface ContentRow {
  readonly key: string;
  readonly text: string | null;
  readonly bytes: Buffer | null;
}

/**
 * The newest accepted run's reads of the dataset (decision 0032), in two statements at most: the
 * page reads, then the content of theirs this process does not keep (`ContentCache`, decision 0035):
 * bodies from page_bodies, entries from observations, records from page_records. An extraction
 * that no longer decodes (written by another version) answers as none: core parses that page.
 */
export const acceptedReads = (
  db: Db,
  cache: ContentCache,
  datasetId: string,
): Effect.Effect<ReadonlyArray<AcceptedRead>, StorageFailure> =>
  !isUuid(datasetId)
    ? Effect.succeed([])
    : Effect.gen(function* () {
        const reads = yield* db.query<KeptReadRow>(
          `select r.run_id, r.recipe, r.url, r.final_url, r.sha256, r.content_type, r.etag, r.last_modified,
                  r.extraction, r.entries_observation_id, r.records_key,
                  exists (select 1 from page_bodies b where b.sha256 = r.sha256) as has_body
             from page_reads r where r.dataset_id = $1`,
          [datasetId],
        );
        // What the cache has is taken now, before anything fetched below makes room in it.
        const texts = new Map<string, string>();
        const values = new Map<string, unknown>();
        const wanted = { bodies: new Set<string>(), observations: new Set<string>(), records: new Set<string>() };
        const want = (set: Set<string>, key: string, cached: string, json: boolean) => {
          if (!cache.has(cached)) set.add(key);
          else if (json) values.set(cached, cache.json(cached));
          else texts.set(cached, cache.text(cached)!);
        };
        for (const read of reads) {
          if (read.has_body) want(wanted.bodies, read.sha256, bodyKey(read.sha256), false);
          const observation = read.entries_observation_id;
          if (observation !== null) want(wanted.observations, observation, observationKey(observation), true);
          if (read.records_key !== null) want(wanted.records, read.records_key, recordsKey(read.records_key), true);
        }
        if (wanted.bodies.size + wanted.observations.size + wanted.records.size > 0) {
          const content = (kind: string, sql: string, keys: Set<string>) =>
            keys.size === 0
              ? Effect.succeed([])
              : db
                  .query<ContentRow>(sql, [[...keys]])
                  .pipe(Effect.map((rows) => rows.map((row) => [kind, row] as const)));
          const fetched = yield* Effect.all(
            [
              content(
                "b",
                `select b.sha256 as key, case when ${asText} then convert_from(b.body, 'UTF8') end as text,
                        case when not ${asText} then b.body end as bytes
                   from page_bodies b where b.sha256 = any($1::text[])`,
                wanted.bodies,
              ),
              content(
                "o",
                `select o.id::text as key, ${observationDocument} as text, null as bytes from observations o where o.id = any($1::uuid[])`,
                wanted.observations,
              ),
              content(
                "r",
                `select k.key, ${pageRecordsText} as text, null as bytes from page_records k where k.key = any($1::text[])`,
                wanted.records,
              ),
            ],
            { concurrency: "unbounded" },
          );
          for (const [kind, row] of fetched.flat()) {
            const key = `${kind}:${row.key}`;
            const text = row.text ?? row.bytes?.toString("utf8") ?? "";
            if (kind === "b") {
              texts.set(key, text);
              cache.keepText(key, text);
            } else {
              const value = parsedJson(text);
              values.set(key, value);
              cache.keepValue(key, value, valueSize(text));
            }
          }
        }
        return reads.map((read) =>
          toAcceptedRead({
            ...read,
            observation:
              read.entries_observation_id === null
                ? null
                : (values.get(observationKey(read.entries_observation_id)) ?? null),
            records: read.records_key === null ? null : (values.get(recordsKey(read.records_key)) ?? null),
            body_text: read.has_body ? (texts.get(bodyKey(read.sha256)) ?? null) : null,
            body: null,
          }),
        );
      });

/**
 * Replaces the dataset's page reads with the accepted run's, inside the acceptance transaction. A
 * reused page sends no extraction (its row keeps the stored one), so an unchanged re-run writes
 * only each page's run id and validators. A parsed page's extraction is sent without its records,
 * which page_records keeps by `records_key` (decision 0034), and, when its entries are those of an
 * observation this acceptance stores (the very array, as the engine builds both), without them too,
 * naming that observation (migration 0013). `written` is `pageReadsToWrite`'s, encoded apart so the
 * host can encode it while the server works (decision 0033). Sends one statement (`Transaction.send`),
 * which also deletes the reads of URLs the run did not read, and answers the Effect awaiting it.
 */
export const sendPageReads = (
  tx: Transaction,
  { run, pageReads }: RunAcceptance,
  written: PageReadsWrite | null,
): Effect.Effect<Effect.Effect<void, StorageFailure>> =>
  pageReads === undefined || written === null
    ? Effect.succeed(Effect.void)
    : Effect.map(
        // The dataset's other URLs' reads go, in the same statement (they are not the rows written).
        tx.send(
          `with gone as (delete from page_reads where dataset_id = $1 and url <> all($5::text[]))
           insert into page_reads (dataset_id, url, run_id, recipe, final_url, sha256, content_type, etag,
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
          [run.datasetId, run.id, pageReads.recipe, written.parameter, pageReads.pages.map((p) => p.url)],
        ),
        Effect.asVoid,
      );

/** What an acceptance writes of its page reads, encoded before anything is sent. */
export interface PageReadsWrite {
  /** sendPageReads' recordset. */
  readonly parameter: string;
  /** Each page's records key, by position: what the run's facts name (page-records.ts). */
  readonly keys: ReadonlyArray<string>;
  /** The records page_records may lack: those of every page whose key was not read from it. */
  readonly records: ReadonlyArray<PageRecords>;
  /** The observations whose entries the written extractions name (`entries_observation_id`). */
  readonly observationIds: ReadonlyArray<string>;
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
  const observationIds: string[] = [];
  const parameter = JSON.stringify(
    pageReads.pages.map((p) => {
      const { key, json } = pageRecordsOf(p.extraction.records);
      keys.push(key);
      if (json !== null) records.push({ key, json, value: p.extraction.records });
      const observationId = p.reused ? undefined : observationOf.get(p.extraction.entries);
      if (observationId !== undefined) observationIds.push(observationId);
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
  return { parameter, keys, records, observationIds };
};
