import * as Effect from "effect/Effect";
import * as Struct from "effect/Struct";
import type { DatasetRecord, StoredDataset } from "../domain.js";
import { NotFound, ValidationError } from "../errors.js";
import { RunQueue } from "../ports/run-queue.js";
import { Storage } from "../ports/storage.js";
import { checkDatasetLimit } from "./owner-limits.js";
import { CursorSecret, decodeCursor, encodeCursor } from "../rules/cursor.js";
import { createDatasetProblems, newColumn, sourceTargetProblems } from "../rules/dataset-rules.js";
import { AllowedTargets } from "../reading/allowed-targets.js";
import type { DatasetColumn } from "../schema/column.js";
import type {
  CreateDatasetRequest,
  DatasetListQuery,
  DatasetSourceResponse,
  UpdateDatasetRequest,
} from "../schema/dataset.js";
import { Dataset } from "../schema/dataset.js";
import { type DatasetId, newId, type OwnerId, type SchemaId } from "../schema/ids.js";
import { nowIso } from "../time.js";
import { applyDatasetUpdate } from "./dataset-update.js";
import { findDataset } from "./find-dataset.js";
import { syncRoutine } from "./routines.js";

const datasetKeys = Object.keys(Dataset.fields) as ReadonlyArray<keyof Dataset>;

/** The API view of a stored dataset: the Dataset schema's fields, in its order, nothing else. */
export const toDataset = ({ record, rowCount, lastRun }: StoredDataset): Dataset =>
  Struct.pick({ ...record, rowCount, lastRun }, ...datasetKeys);

const invalid = (details: ValidationError["details"]) =>
  new ValidationError({ message: `The dataset is invalid: ${details[0]?.path} ${details[0]?.message}.`, details });

/** Endpoint 1. Dataset (`draft`), bot, recipe version 1 and schema version 1, all or nothing. */
export const createDataset = (ownerId: OwnerId, request: CreateDatasetRequest) =>
  Effect.gen(function* () {
    const problems = [...createDatasetProblems(request), ...sourceTargetProblems(request, yield* AllowedTargets)];
    if (problems.length > 0) return yield* Effect.fail(invalid(problems));
    const now = yield* nowIso;
    const id = newId<DatasetId>();
    const columns: DatasetColumn[] = request.columns.map(newColumn);
    const record: DatasetRecord = {
      id,
      ownerId,
      name: request.name,
      question: request.question ?? null,
      columns,
      schemaVersion: 1,
      status: "draft",
      schedule: null,
      scheduleState: null,
      botId: newId(),
      recipes: [{ version: 1, source: request.source, createdAt: now }],
      schemas: [{ id: newId<SchemaId>(), datasetId: id, version: 1, fields: columns, createdAt: now }],
      createdAt: now,
      updatedAt: now,
      revision: 1,
    };
    yield* checkDatasetLimit(ownerId);
    const storage = yield* Storage;
    yield* storage.insertDataset(record);
    return toDataset({ record, rowCount: 0, lastRun: null });
  });

export const getDataset = (ownerId: OwnerId, id: string) => Effect.map(findDataset(ownerId, id), toDataset);

/** The source the dataset's next run reads: its newest recipe version's. */
export const getDatasetSource = (ownerId: OwnerId, id: string) =>
  Effect.map(findDataset(ownerId, id), ({ record }): DatasetSourceResponse => {
    const recipe = record.recipes[record.recipes.length - 1]!;
    return { source: recipe.source, recipeVersion: recipe.version };
  });

/**
 * Deletes a dataset with its rows, history, runs and their evidence, and the webhooks scoped to it
 * (the ledger keeps its entries). A run in flight then finds its run gone and writes nothing. A
 * repeated delete, or another owner's, is 404: there is nothing left to delete.
 */
export const deleteDataset = (ownerId: OwnerId, id: string) =>
  Effect.gen(function* () {
    const deleted = yield* (yield* Storage).deleteDataset(ownerId, id as DatasetId);
    if (!deleted) return yield* Effect.fail(new NotFound({ resource: "dataset", id }));
    yield* (yield* RunQueue).removeRoutine(id as DatasetId);
    yield* Effect.logInfo("dataset deleted").pipe(Effect.annotateLogs({ datasetId: id }));
  });

/** Endpoint 2: newest first, keyset-paginated with an opaque cursor. */
export const listDatasets = (ownerId: OwnerId, { cursor, limit }: DatasetListQuery) =>
  Effect.gen(function* () {
    const secret = yield* CursorSecret;
    const after = cursor
      ? yield* Effect.map(decodeCursor("datasets", ownerId, cursor, secret), ([createdAt, id]) => ({
          createdAt: String(createdAt),
          id: String(id) as DatasetId,
        }))
      : null;
    const storage = yield* Storage;
    const page = yield* storage.listDatasets(ownerId, { after, limit: limit + 1 });
    const data = page.slice(0, limit);
    const last = data[data.length - 1];
    const nextCursor =
      page.length > limit && last
        ? encodeCursor("datasets", ownerId, [last.record.createdAt, last.record.id], secret)
        : null;
    return { data: data.map(toDataset), nextCursor };
  });

/** Endpoint 4. */
export const updateDataset = (ownerId: OwnerId, id: string, request: UpdateDatasetRequest) =>
  Effect.gen(function* () {
    if (Object.keys(request).length === 0) {
      return yield* Effect.fail(
        new ValidationError({
          message: "The update is empty: send at least one of name, question, columns, status, schedule.",
          details: [{ path: "/", message: "must have at least one property" }],
        }),
      );
    }
    const stored = yield* findDataset(ownerId, id);
    const next = yield* applyDatasetUpdate(stored.record, request, yield* nowIso);
    if (next === stored.record) return toDataset(stored);
    yield* (yield* Storage).updateDataset(next);
    yield* syncRoutine(next);
    return toDataset({ ...stored, record: next });
  });
