import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import { BadRequest, NotFound, ValidationError } from "../errors.js";
import { Storage } from "../ports/storage.js";
import type { StoredRevision } from "../run-domain.js";
import type { DatasetId, OwnerId, RowId } from "../schema/ids.js";
import type { ChangeQuery } from "../schema/requests-rows.js";
import type { ChangePage } from "../schema/row.js";
import { findDataset } from "./find-dataset.js";
import { toRowRevision } from "./row-edit.js";
import { citedObservations } from "../rules/cited-observations.js";

type ChangeItem = ChangePage["data"][number];

const toChange = (r: StoredRevision): ChangeItem => ({
  ...toRowRevision(r),
  before: r.before,
  ...(r.beforeOverrides ? { beforeOverrides: r.beforeOverrides } : {}),
});

const inconsistent = (path: string, message: string) =>
  new ValidationError({
    message: `The change window is inconsistent: ${path} ${message}.`,
    details: [{ path, message }],
  });

/**
 * Endpoint 8: revisions in ascending sequence within the window `after < sequence <= through`.
 * A first poll fixes `through` at the dataset's last sequence, so revisions written while a
 * client pages cannot slip into the middle of its window; they belong to the next window, which
 * starts at this window's `through`. Malformed parameters are 400; well-formed parameters that
 * cannot describe a window of this feed are 422.
 */
export const listChanges = (ownerId: OwnerId, datasetId: string, params: ChangeQuery) =>
  Effect.gen(function* () {
    if (params.fieldId !== undefined && params.rowId === undefined) {
      return yield* Effect.fail(
        new BadRequest({
          message: 'Query parameter "fieldId" selects a cell timeline and needs "rowId".',
          details: [{ path: "fieldId", message: "requires rowId" }],
        }),
      );
    }
    if (params.changedFieldId !== undefined && params.fieldId !== undefined) {
      return yield* Effect.fail(
        new BadRequest({
          message: 'Query parameters "changedFieldId" and "fieldId" both select a field: send one.',
          details: [{ path: "changedFieldId", message: "not with fieldId" }],
        }),
      );
    }
    // One field's changes: a cell's (fieldId, with rowId) or the whole feed's (changedFieldId).
    const field = params.fieldId ?? params.changedFieldId;
    const fieldPath = params.fieldId !== undefined ? "fieldId" : "changedFieldId";
    const dataset = yield* findDataset(ownerId, datasetId);
    const id = dataset.record.id as DatasetId;
    const storage = yield* Storage;
    const last = yield* storage.lastSequence(id);
    const after = params.after ?? 0;
    const through = params.through ?? last;
    if (params.after !== undefined && params.after > last) {
      return yield* Effect.fail(inconsistent("after", `is beyond the last sequence of this dataset (${last})`));
    }
    if (params.through !== undefined && params.through > last) {
      return yield* Effect.fail(inconsistent("through", `is beyond the last sequence of this dataset (${last})`));
    }
    if (after > through) return yield* Effect.fail(inconsistent("after", `must not exceed through (${through})`));
    if (field !== undefined) {
      const known = dataset.record.schemas.some((s) => s.fields.some((f) => f.id === field));
      if (!known) return yield* Effect.fail(inconsistent(fieldPath, "is not a field of this dataset"));
    }
    if (params.rowId !== undefined) {
      const row = yield* storage.getRow(id, params.rowId as RowId);
      if (Option.isNone(row)) return yield* Effect.fail(new NotFound({ resource: "row", id: params.rowId }));
    }

    const page = yield* storage.listRevisions(id, {
      after,
      through,
      limit: params.limit + 1,
      rowId: (params.rowId as RowId | undefined) ?? null,
      fieldId: field ?? null,
    });
    const data = page.slice(0, params.limit);
    const nextAfter = page.length > params.limit ? (data[data.length - 1]?.sequence ?? null) : null;
    const versions = new Set(data.map((r) => r.schemaVersion));
    const observations = yield* storage.getObservations(citedObservations(data));
    const result: ChangePage = {
      data: data.map(toChange),
      schemas: dataset.record.schemas.filter((s) => versions.has(s.version)),
      observations,
      through,
      nextAfter,
    };
    return result;
  });
