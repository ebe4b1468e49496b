import * as Effect from "effect/Effect";
import { rowsPageStateOf } from "../storage-fallbacks.js";
import * as Option from "effect/Option";
import { sha256HexSync } from "../digest.js";
import { NotFound } from "../errors.js";
import { Storage } from "../ports/storage.js";
import type { DatasetId, OwnerId } from "../schema/ids.js";

/**
 * The entity tag of a page of `GET /v1/datasets/{id}/rows` (decision 0042): a digest of what the
 * page can depend on, read without listing a row. Rows change only through an acceptance (the
 * dataset's newest run turns `succeeded`; unchanged rows' seen-markers move with it even when no
 * revision is written), an edit (a new revision sequence) or a dataset update (its revision), so
 * (dataset revision, last sequence, newest run id and status, the query) change whenever the page
 * can. It may change when the page did not (a run queued or failed): a client then reads it again.
 * Computed before the page is read, so a write in between only ever makes the tag older than the
 * page, never newer. The store reads the three in one call (one statement on PostgreSQL), and the
 * digest is synchronous: this runs on every read of a page (decision 0042).
 *
 * The query is the request's own query string, unparsed: the same string always asks for the same
 * page, and a page answered from its tag then never parses it (decision 0042). The same query
 * written in another order gets another tag, and so only a full answer instead of a 304.
 */
export const rowsPageTag = (ownerId: OwnerId, datasetId: string, querystring: string) =>
  Effect.flatMap(Storage, (storage) => rowsPageStateOf(storage, ownerId, datasetId as DatasetId)).pipe(
    Effect.flatMap((found) => {
      if (Option.isNone(found)) return Effect.fail(new NotFound({ resource: "dataset", id: datasetId }));
      const { revision, lastSequence, newestRun } = found.value;
      const inputs = [datasetId, revision, lastSequence, newestRun?.id ?? null, newestRun?.status ?? null, querystring];
      return Effect.succeed(`W/"rows-${sha256HexSync(JSON.stringify(inputs)).slice(0, 32)}"`);
    }),
  );
