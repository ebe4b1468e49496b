import type * as Effect from "effect/Effect";
import type { StorageFailure } from "../errors.js";
import type { AcceptedRead } from "../page-reads.js";
import type { DatasetId } from "../schema/ids.js";

/**
 * The page-read part of the Storage port (decision 0042): what the dataset's newest accepted run
 * read, so the next run can reuse a page's extraction and ask the site conditionally. The reads
 * are written by acceptRun, in its transaction (`RunAcceptance.pageReads`), replacing the
 * dataset's previous ones whole; a store answers only what it still has and core falls back to a
 * full read for the rest.
 */
export interface PageReadStorage {
  /**
   * Every read of the newest accepted run (one per URL the engine asked for; at most a source's
   * maxPages), or none. One call per run: asked page by page, a run waited on the store once per
   * page (decision 0042). Optional: it only saves work; without it every page is read in full.
   */
  readonly acceptedReads?: (datasetId: DatasetId) => Effect.Effect<ReadonlyArray<AcceptedRead>, StorageFailure>;
}
