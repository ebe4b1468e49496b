import * as Effect from "effect/Effect";
import { acceptedReadsOf } from "../storage-fallbacks.js";
import { sha256Hex } from "../digest.js";
import type { AcceptedRead, StoredExtraction } from "../page-reads.js";
import { Storage } from "../ports/storage.js";
import type { FetchedPage, FetchRequest } from "../ports/fetcher.js";
import type { DatasetColumn } from "../schema/column.js";
import type { DatasetId } from "../schema/ids.js";
import type { Source } from "../schema/source.js";
import type { Cell } from "./coerce.js";
import type { ExtractedRecord, PageExtraction } from "./extract.js";

/**
 * Reusing a page's extraction (decision 0042). A page a run reads is taken from the dataset's
 * newest accepted run instead of being parsed when its bytes are that read's (same SHA-256, same
 * final URL, or a 304 to the validators that read sent) and the recipe is that run's. The page is
 * still read, checked and charged; only parsing and extraction are skipped.
 */

/**
 * Bump when extraction or coercion changes what a page yields (extract.ts, coerce.ts, nextUrl in
 * read-page.ts): extractions kept under an older version are then parsed again. A forgotten bump
 * fails core/test/engine/extraction-rules.test.ts, which holds a digest of what a corpus yields.
 */
export const extractionRulesVersion = 3;

/** JSON with object keys sorted, so equal recipes digest alike whatever order a store kept keys in. */
const canonical = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
};

/**
 * "The recipe" a kept extraction is valid for: everything a page's records, entries and next page
 * depend on besides its bytes and final URL. The source's start URL, item selector, reads, identity
 * and pagination; every column's id, name, type, ownership and key (names map reads to field ids,
 * types decide coercion; a column added by a dataset update changes it too); and the engine's
 * extraction rules. Not the limits (maxPages, maxItems, minimumItems: applied to the records
 * afterwards), render, proxy or robots (they decide how bytes are fetched, and the digest covers the
 * bytes), nor labels and descriptions.
 */
export const recipeDigest = (source: Source, columns: ReadonlyArray<DatasetColumn>): Effect.Effect<string> =>
  sha256Hex(
    canonical({
      rules: extractionRulesVersion,
      url: source.url,
      itemSelector: source.itemSelector,
      fields: source.fields,
      identity: source.identity,
      pagination: source.pagination,
      columns: columns.map((c) => ({ id: c.id, name: c.name, type: c.type, ownership: c.ownership, key: c.key })),
    }),
  );

/**
 * The newest accepted run's reads, by the URL the engine asked for: empty when there are none. A
 * store that cannot answer is no reason to fail a run: its pages are then read in full.
 */
export const keptReads = (
  datasetId: DatasetId | null,
): Effect.Effect<ReadonlyMap<string, AcceptedRead>, never, Storage> =>
  datasetId === null
    ? Effect.succeed(new Map())
    : Effect.flatMap(Storage, (storage) => acceptedReadsOf(storage, datasetId)).pipe(
        Effect.map((reads) => new Map(reads.map((read) => [read.url, read]))),
        Effect.tapError((error) => Effect.logWarning("kept page reads unavailable; reading in full", error)),
        Effect.orElseSucceed(() => new Map<string, AcceptedRead>()),
      );

/** A kept read whose extraction can be reused under `recipe`; null otherwise. */
export const reusable = (read: AcceptedRead | null, recipe: string): AcceptedRead | null =>
  read !== null && read.recipe === recipe && read.extraction !== null ? read : null;

/** The validators to ask with: only when the stored body is there to stand for a 304. */
export const conditionalFor = (read: AcceptedRead | null): FetchRequest["conditional"] =>
  read !== null && read.body !== null && (read.etag !== null || read.lastModified !== null)
    ? { url: read.finalUrl, etag: read.etag, lastModified: read.lastModified }
    : undefined;

/** The kept page, for the fetcher to recognise unchanged bytes without judging them again. */
export const knownFor = (read: AcceptedRead | null): FetchRequest["known"] =>
  read !== null && read.body !== null ? { url: read.finalUrl, body: read.body } : undefined;

/** A 304 answer as the page it stands for: the stored body, digest and type at the stored final URL. */
export const storedPage = (answer: FetchedPage, read: AcceptedRead): FetchedPage => ({
  ...answer,
  finalUrl: read.finalUrl,
  contentType: read.contentType,
  body: read.body ?? "",
  validators: {
    etag: answer.validators?.etag ?? read.etag,
    lastModified: answer.validators?.lastModified ?? read.lastModified,
  },
});

/** Is a freshly read page the kept body itself (so its digest is the kept one, without hashing)? */
export const sameText = (read: AcceptedRead, page: FetchedPage): boolean =>
  read.body !== null && read.finalUrl === page.finalUrl && read.body === page.body;

/** Does a freshly read page carry the kept read's bytes? */
export const sameBytes = (read: AcceptedRead, page: FetchedPage, sha256: string): boolean =>
  read.sha256 === sha256 && read.finalUrl === page.finalUrl;

/** An extraction (and where pagination goes next) in the form a store keeps. */
export const toStoredExtraction = (extraction: PageExtraction, next: string | null): StoredExtraction => {
  const records = extraction.records.map((r) => {
    const cells: Array<StoredExtraction["records"][number]["cells"][number]> = [];
    r.cells.forEach((cell, fieldId) => {
      cells.push([fieldId, cell.value, cell.missingReason, cell.raw]);
    });
    return { index: r.index, rowKey: r.rowKey, cells };
  });
  return { records, entries: extraction.entries, next };
};

/** A kept extraction as the records the engine checks, for a page at `pageUrl`. */
export const fromStoredExtraction = (stored: StoredExtraction, pageUrl: string): PageExtraction => {
  const records = stored.records.map(
    (r): ExtractedRecord => ({
      pageUrl,
      index: r.index,
      entryId: String(r.index),
      rowKey: r.rowKey,
      cells: new Map(
        r.cells.map(([fieldId, value, missingReason, raw]): [string, Cell] => [fieldId, { value, missingReason, raw }]),
      ),
    }),
  );
  return { records, entries: stored.entries };
};
