import * as Schema from "effect/Schema";
import { QueryInt } from "./query.js";
import { ColumnInput, DatasetColumn } from "./column.js";
import { DatasetId, DateTime, RunId } from "./ids.js";
import { RunStatus } from "./run.js";
import { Source } from "./source.js";

export const DatasetStatus = Schema.Literal("draft", "active", "paused");
export type DatasetStatus = typeof DatasetStatus.Type;

export const ScheduleState = Schema.Struct({
  cron: Schema.String,
  status: Schema.Literal("active", "paused", "completed"),
  reason: Schema.NullOr(Schema.String),
}).annotations({ identifier: "ScheduleState" });
export type ScheduleState = typeof ScheduleState.Type;

export const RunSummary = Schema.Struct({
  id: RunId,
  status: RunStatus,
  completedAt: Schema.NullOr(DateTime),
}).annotations({ identifier: "RunSummary" });
export type RunSummary = typeof RunSummary.Type;

export const Dataset = Schema.Struct({
  id: DatasetId,
  name: Schema.String,
  question: Schema.NullOr(Schema.String),
  columns: Schema.Array(DatasetColumn),
  schemaVersion: Schema.Int.pipe(Schema.greaterThanOrEqualTo(1)),
  status: DatasetStatus,
  schedule: Schema.NullOr(Schema.String),
  scheduleState: Schema.NullOr(ScheduleState),
  rowCount: Schema.Int.pipe(Schema.greaterThanOrEqualTo(0)),
  lastRun: Schema.NullOr(RunSummary),
  createdAt: DateTime,
  updatedAt: DateTime,
}).annotations({ identifier: "Dataset" });
export type Dataset = typeof Dataset.Type;

export const DatasetResponse = Schema.Struct({ dataset: Dataset }).annotations({ identifier: "DatasetResponse" });

/** Extension: a dataset's declared source, as its current recipe version holds it (the Dataset shape has none). */
export const DatasetSourceResponse = Schema.Struct({
  source: Source,
  recipeVersion: Schema.Int.pipe(Schema.greaterThanOrEqualTo(1)),
}).annotations({ identifier: "DatasetSourceResponse" });
export type DatasetSourceResponse = typeof DatasetSourceResponse.Type;

export const DatasetName = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(120));
export const Question = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(1000));
export const Cron = Schema.String.pipe(Schema.minLength(9), Schema.maxLength(100));

export const CreateDatasetRequest = Schema.Struct({
  name: DatasetName,
  question: Schema.optional(Question),
  columns: Schema.Array(ColumnInput).pipe(Schema.minItems(1), Schema.maxItems(50)),
  source: Source,
}).annotations({ identifier: "CreateDatasetRequest" });
export type CreateDatasetRequest = typeof CreateDatasetRequest.Type;

export const UpdateDatasetRequest = Schema.Struct({
  expectedSchemaVersion: Schema.optional(Schema.Int.pipe(Schema.greaterThanOrEqualTo(1))),
  name: Schema.optional(DatasetName),
  question: Schema.optional(Schema.NullOr(Question)),
  columns: Schema.optional(Schema.Array(ColumnInput).pipe(Schema.minItems(1), Schema.maxItems(50))),
  status: Schema.optional(DatasetStatus),
  schedule: Schema.optional(Schema.NullOr(Cron)),
}).annotations({ identifier: "UpdateDatasetRequest" });
export type UpdateDatasetRequest = typeof UpdateDatasetRequest.Type;

export const DatasetListQuery = Schema.Struct({
  cursor: Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(1000))),
  limit: Schema.optionalWith(QueryInt(1, 100), { default: () => 20 }),
});
export type DatasetListQuery = typeof DatasetListQuery.Type;

export const DatasetList = Schema.Struct({
  data: Schema.Array(Dataset),
  nextCursor: Schema.NullOr(Schema.String),
}).annotations({ identifier: "DatasetList" });
