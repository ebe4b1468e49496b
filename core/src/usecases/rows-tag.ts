import * as Effect from "effect/Effect";
import { sha256Hex } from "../digest.js";
import { Storage } from "../ports/storage.js";
import type { OwnerId } from "../schema/ids.js";
import { findDataset } from "./find-dataset.js";

/**
 * The entity tag of a page of `GET /v1/datasets/{id}/rows` (decision 0020): a digest of what the
 * page can depend on, read without listing a row. Rows change only through an acceptance (the
 * dataset's newest run turns `succeeded`; unchanged rows' seen-markers move with it even when no
 * revision is written), an edit (a new revision sequence) or a dataset update (its revision), so
 * (dataset revision, last sequence, newest run id and status, the query) change whenever the page
 * can. It may change when the page did not (a run queued or failed): a client then reads it again.
 * Computed before the page is read, so a write in between only ever makes the tag older than the
 * page, never newer.
 */
export const rowsPageTag = (ownerId: OwnerId, datasetId: string, query: Record<string, unknown>) =>
  Effect.gen(function* () {
    const dataset = yield* findDataset(ownerId, datasetId);
    const storage = yield* Storage;
    const id = dataset.record.id;
    const [sequence, [newest]] = yield* Effect.all([storage.lastSequence(id), storage.listRuns(id, 1)]);
    const params = Object.keys(query)
      .sort()
      .map((key) => [key, query[key]]);
    const digest = yield* sha256Hex(
      JSON.stringify([id, dataset.record.revision, sequence, newest?.id ?? null, newest?.status ?? null, params]),
    );
    return `W/"rows-${digest.slice(0, 32)}"`;
  });
