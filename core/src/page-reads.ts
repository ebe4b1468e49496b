import * as Schema from "effect/Schema";
import { MissingReason, ObservationEntry, Scalar } from "./schema/row.js";

/**
 * What a deterministic run derived from one page, kept so that a later run reading the same bytes
 * under the same recipe can take it instead of parsing again (decision 0042): the records' cells
 * (each `[fieldId, value, missingReason, raw]`, the coerced cell and the text it came from), their
 * rowKeys, the observation entries (excerpts) and where pagination goes from the page.
 */
export const StoredExtraction = Schema.Struct({
  records: Schema.Array(
    Schema.Struct({
      index: Schema.NonNegativeInt,
      rowKey: Schema.NullOr(Schema.String),
      cells: Schema.Array(
        Schema.Tuple(Schema.String, Scalar, Schema.NullOr(MissingReason), Schema.NullOr(Schema.String)),
      ),
    }),
  ),
  entries: Schema.Array(ObservationEntry),
  /** The next page the recipe's pagination reads after this one; null where it ends. */
  next: Schema.NullOr(Schema.String),
});
export type StoredExtraction = typeof StoredExtraction.Type;

/** What the site sent to identify a page's version, sent back in a conditional request. */
export interface PageValidators {
  readonly etag: string | null;
  readonly lastModified: string | null;
}

/**
 * A page as the dataset's newest accepted run read it (the store's answer to `acceptedReads`).
 * `extraction` is null when the store no longer has it, `body` when it kept none (over the artifact
 * limit, or gone): the engine then parses, or asks without validators.
 */
export interface AcceptedRead extends PageValidators {
  readonly runId: string;
  /** The digest of the recipe the run read it under (engine/reuse.ts, `recipeDigest`). */
  readonly recipe: string;
  /** The URL the engine asked for; `finalUrl` is where it ended after redirects. */
  readonly url: string;
  readonly finalUrl: string;
  readonly sha256: string;
  readonly contentType: string;
  readonly extraction: StoredExtraction | null;
  readonly body: string | null;
}

/**
 * A page read an acceptance hands the store to keep. `reused` pages carry the extraction the store
 * gave the engine: a store may keep the one it has instead of writing it again.
 */
export interface PageReadToKeep extends PageValidators {
  readonly url: string;
  readonly finalUrl: string;
  readonly sha256: string;
  readonly contentType: string;
  readonly extraction: StoredExtraction;
  readonly reused: boolean;
  /** The page's body; stores that keep bodies by digest already have it with the run's artifacts. */
  readonly body: string;
}

/** The page reads of an accepted run: they replace the dataset's previous ones whole. */
export interface PageReadsToKeep {
  readonly recipe: string;
  readonly pages: ReadonlyArray<PageReadToKeep>;
}
