import { createHash } from "node:crypto";
import type { RecordFact, RunAcceptance, StorageFailure, StoredExtraction } from "@gleaner/core";
import * as Effect from "effect/Effect";
import { type Sql, sendContentAddressed, type Transaction } from "./db.js";
import { pageRecordsText, parsedJson } from "./text-documents.js";

// page_records (migration 0016, decision 0034): each page's records once, by the digest of their
// JSON, named by the page reads that keep them and by the facts of every run that read them.

type Records = StoredExtraction["records"];

/** A page's records as page_records keeps them: their JSON and its digest. */
export interface PageRecords {
  readonly key: string;
  readonly json: string;
  /** The records the JSON encodes. */
  readonly value: Records;
}

/** page_records' key of records already encoded: the SHA-256 of their JSON, hex. */
const keyOf = (json: string) => createHash("sha256").update(json).digest("hex");

/**
 * The records of extractions this process read from page_records, by the very array it answered
 * (acceptedReads): a run that reuses a page hands the same array back, and its key is then known
 * without encoding and hashing the records again.
 */
const keptKeys = new WeakMap<Records, string>();

/** Remembers that `records` are page_records' `key` (they were read from there). */
export const readFromPageRecords = (records: Records, key: string) => {
  keptKeys.set(records, key);
};

/** The key `records` are (or will be) stored under, and their JSON when it had to be encoded. */
export const pageRecordsOf = (records: Records): { readonly key: string; readonly json: string | null } => {
  const kept = keptKeys.get(records);
  if (kept !== undefined) return { key: kept, json: null };
  const json = JSON.stringify(records);
  return { key: keyOf(json), json };
};

/**
 * Stores records page_records may lack (ON CONFLICT adds nothing for those it has): each page's
 * key and records JSON (`sendContentAddressed`, as page bodies), kept as text (migration 0017): the
 * server neither parses nor checks them as JSON. Sent; answers the Effect awaiting the server.
 */
export const sendPageRecords = (
  tx: Transaction,
  records: ReadonlyArray<PageRecords>,
): Effect.Effect<Effect.Effect<void, StorageFailure>> =>
  sendContentAddressed(
    tx,
    { table: "page_records", key: "key", value: "records_text", valueType: "text" },
    records,
    (r) => r.key,
    (r) => r.json,
  );

/** How a run's facts are stored when they are exactly its pages' records, in page order. */
export interface FactsByPage {
  readonly pages: ReadonlyArray<{ readonly url: string; readonly records: string }>;
}

/** A fact of `records` at `pageUrl`, in RecordFact's key order (storedDecoder takes it as it is). */
const factsOf = (pageUrl: string, records: Records): RecordFact[] =>
  records.map((r) => ({
    rowKey: r.rowKey,
    pageUrl,
    index: r.index,
    cells: r.cells.map(([fieldId, value, missingReason, raw]) => ({ fieldId, value, missingReason, raw })),
  }));

/** Do `fact` and the record at `pageUrl` say the same, and nothing more? */
const sameFact = (fact: RecordFact, pageUrl: string, record: Records[number]) => {
  if (fact.entity !== undefined || fact.pageUrl !== pageUrl || fact.rowKey !== record.rowKey) return false;
  if (fact.index !== record.index || fact.cells.length !== record.cells.length) return false;
  // Indexed, not destructured: destructuring an array allocates an iterator until V8 optimises it.
  return fact.cells.every((cell, i) => {
    const kept = record.cells[i]!;
    return cell.fieldId === kept[0] && cell.value === kept[1] && cell.missingReason === kept[2] && cell.raw === kept[3];
  });
};

/**
 * The acceptance's facts as the list of its pages' records (each page's key in `keys`, by position),
 * or null when they are anything else (a research run's, a fact with an entity, or any difference):
 * those are stored whole. Each page's facts stand at the URL its first fact names.
 */
export const factsByPage = (
  { evidence: { facts }, pageReads }: RunAcceptance,
  keys: ReadonlyArray<string>,
): FactsByPage | null => {
  if (pageReads === undefined) return null;
  const pages: Array<FactsByPage["pages"][number]> = [];
  let at = 0;
  for (const [position, page] of pageReads.pages.entries()) {
    const { records } = page.extraction;
    if (records.length === 0) continue;
    const pageUrl = facts[at]?.pageUrl;
    if (pageUrl === undefined || at + records.length > facts.length) return null;
    if (!records.every((record, i) => sameFact(facts[at + i]!, pageUrl, record))) return null;
    pages.push({ url: pageUrl, records: keys[position]! });
    at += records.length;
  }
  return at === facts.length ? { pages } : null;
};

/** Stored facts whole again: those kept as their pages' records are read from page_records. */
export const storedFacts = (sql: Sql, facts: unknown): Effect.Effect<unknown, StorageFailure> => {
  if (typeof facts !== "object" || facts === null || Array.isArray(facts) || !("pages" in facts)) {
    return Effect.succeed(facts);
  }
  const { pages } = facts as FactsByPage;
  if (!Array.isArray(pages)) return Effect.succeed(facts);
  return Effect.map(
    sql.query<{ key: string; records: string }>(
      `select k.key, ${pageRecordsText} as records from page_records k where k.key = any($1::text[])`,
      [[...new Set(pages.map((p) => p.records))]],
    ),
    (rows) => {
      const byKey = new Map(rows.map((row) => [row.key, parsedJson(row.records) as Records]));
      // A page whose records are gone leaves the facts as they are stored: the decoder refuses them.
      if (!pages.every((p) => byKey.has(p.records))) return facts;
      return pages.flatMap((p) => factsOf(p.url, byKey.get(p.records)!));
    },
  );
};
