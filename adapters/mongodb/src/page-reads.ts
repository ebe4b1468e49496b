import {
  type AcceptedRead,
  type RunAcceptance,
  StoredExtraction as StoredExtractionSchema,
  storedDecoder,
} from "@gleaner/core";
import * as Either from "effect/Either";
import type { ClientSession } from "mongodb";
import { fromUuid, toUuid } from "./bson.js";
import type { Collections } from "./schema.js";
import type { PageReadDoc } from "./collection-documents.js";

const bodyLimit = 64 * 1024;

const decodeExtraction = storedDecoder(StoredExtractionSchema, "MongoDB", "page extraction");

export const pageReadFromDoc = (doc: PageReadDoc): AcceptedRead => ({
  runId: fromUuid(doc.runId),
  recipe: doc.recipe,
  url: doc.url,
  finalUrl: doc.finalUrl,
  sha256: doc.sha256,
  contentType: doc.contentType,
  etag: doc.etag,
  lastModified: doc.lastModified,
  // One that no longer decodes (another version wrote it) answers as none: core parses the page.
  extraction: doc.extraction === null ? null : Either.getOrNull(decodeExtraction(doc.extraction, doc.url)),
  body: doc.body,
});

/**
 * Replaces the dataset's page reads with the accepted run's, in the acceptance transaction. A
 * reused page keeps its stored extraction and body; only its run, digest and validators are set.
 */
export const writePageReads = async (
  collections: Collections,
  session: ClientSession,
  { run, pageReads }: RunAcceptance,
): Promise<void> => {
  if (pageReads === undefined) return;
  const datasetId = toUuid(run.datasetId);
  await collections.pageReads.deleteMany({ datasetId, url: { $nin: pageReads.pages.map((p) => p.url) } }, { session });
  if (pageReads.pages.length === 0) return;
  await collections.pageReads.bulkWrite(
    pageReads.pages.map((p) => {
      const kept = {
        runId: toUuid(run.id),
        recipe: pageReads.recipe,
        finalUrl: p.finalUrl,
        sha256: p.sha256,
        contentType: p.contentType,
        etag: p.etag,
        lastModified: p.lastModified,
      };
      const derived = {
        extraction: p.extraction,
        body: Buffer.byteLength(p.body, "utf8") > bodyLimit ? null : p.body,
      };
      return {
        updateOne: {
          filter: { datasetId, url: p.url },
          // A reused page whose document went missing keeps no extraction: the next run parses.
          // (No empty $setOnInsert: servers before 5.0 refuse an empty operator.)
          update: p.reused
            ? { $set: kept, $setOnInsert: { extraction: null, body: null } }
            : { $set: { ...kept, ...derived } },
          upsert: true,
        },
      };
    }),
    { session, ordered: true },
  );
};
