import * as Effect from "effect/Effect";
import type { DatasetRecord } from "../domain.js";
import { Conflict, type ErrorDetail, ValidationError } from "../errors.js";
import { cronProblem } from "../rules/cron.js";
import { columnProblems, newColumn } from "../rules/dataset-rules.js";
import { scheduleView } from "../rules/schedule-state.js";
import type { ColumnInput, DatasetColumn } from "../schema/column.js";
import type { UpdateDatasetRequest } from "../schema/dataset.js";
import { newId, type SchemaId } from "../schema/ids.js";

const fail = (details: ErrorDetail[]) =>
  Effect.fail(
    new ValidationError({ message: `The update is invalid: ${details[0]?.path} ${details[0]?.message}.`, details }),
  );

/**
 * Column evolution: every existing column is kept with its id, name, type, ownership and key;
 * only labels and descriptions change; new columns are user-owned. Returns null when nothing changed.
 */
const evolveColumns = (
  current: ReadonlyArray<DatasetColumn>,
  requested: ReadonlyArray<ColumnInput>,
): Effect.Effect<DatasetColumn[] | null, ValidationError> => {
  const problems = columnProblems(requested, "update");
  const next: DatasetColumn[] = [];
  const kept = new Set<string>();
  requested.forEach((input, i) => {
    const path = `/columns/${i}`;
    if (input.id === undefined) {
      if (input.ownership !== "user") {
        problems.push({ path: `${path}/ownership`, message: 'a new column must have ownership "user"' });
      }
      next.push(newColumn(input));
      return;
    }
    const existing = current.find((c) => c.id === input.id);
    if (!existing) {
      problems.push({
        path: `${path}/id`,
        message: `"${input.id}" is not a column of this dataset; omit id for a new column`,
      });
      return;
    }
    if (kept.has(existing.id)) problems.push({ path: `${path}/id`, message: "lists the same column twice" });
    kept.add(existing.id);
    for (const field of ["name", "type", "ownership", "key"] as const) {
      if (input[field] !== existing[field]) {
        problems.push({
          path: `${path}/${field}`,
          message: `cannot change on existing column "${existing.name}" (is ${String(existing[field])})`,
        });
      }
    }
    const description = input.description ?? existing.description;
    next.push({
      ...existing,
      label: input.label ?? existing.label,
      ...(description !== undefined ? { description } : {}),
    });
  });
  current.forEach((column) => {
    if (!kept.has(column.id)) {
      problems.push({ path: "/columns", message: `must keep existing column "${column.name}" (id ${column.id})` });
    }
  });
  if (problems.length > 0) return fail(problems);
  const unchanged = JSON.stringify(next) === JSON.stringify(current);
  return Effect.succeed(unchanged ? null : next);
};

const statusProblem = (from: DatasetRecord["status"], to: DatasetRecord["status"]): ErrorDetail | null =>
  to === "draft" && from !== "draft" ? { path: "/status", message: `a ${from} dataset cannot return to draft` } : null;

/** Applies a decoded PATCH to a dataset record; returns the same record when nothing changed. */
export const applyDatasetUpdate = (record: DatasetRecord, request: UpdateDatasetRequest, now: string) =>
  Effect.gen(function* () {
    let next: DatasetRecord = record;
    const set = (patch: Partial<DatasetRecord>) => {
      next = { ...next, ...patch };
    };

    if (typeof request.schedule === "string") {
      const problem = cronProblem(request.schedule);
      if (problem) return yield* fail([{ path: "/schedule", message: problem }]);
    }
    if (request.expectedSchemaVersion === undefined && request.columns !== undefined) {
      return yield* fail([{ path: "/expectedSchemaVersion", message: "is required when columns are updated" }]);
    }
    if (request.expectedSchemaVersion !== undefined && request.expectedSchemaVersion !== record.schemaVersion) {
      return yield* Effect.fail(
        new Conflict({
          code: "schema_version_conflict",
          message: `The dataset's schema is at version ${record.schemaVersion}, not ${request.expectedSchemaVersion}; read it again and retry.`,
        }),
      );
    }
    if (request.status !== undefined) {
      const problem = statusProblem(record.status, request.status);
      if (problem) return yield* fail([problem]);
    }

    if (request.name !== undefined && request.name !== record.name) set({ name: request.name });
    if (request.question !== undefined && request.question !== record.question) set({ question: request.question });
    if (request.status !== undefined && request.status !== record.status) set({ status: request.status });
    if (request.columns !== undefined) {
      const columns = yield* evolveColumns(record.columns, request.columns);
      if (columns) {
        const version = record.schemaVersion + 1;
        set({
          columns,
          schemaVersion: version,
          schemas: [
            ...record.schemas,
            { id: newId<SchemaId>(), datasetId: record.id, version, fields: columns, createdAt: now },
          ],
        });
      }
    }
    const cron = request.schedule !== undefined ? request.schedule : (record.scheduleState?.cron ?? null);
    const view = scheduleView(next.status, cron, request.schedule !== undefined ? null : record.scheduleState);
    if (JSON.stringify(view) !== JSON.stringify({ schedule: record.schedule, scheduleState: record.scheduleState })) {
      set(view);
    }
    if (next === record) return record;
    return { ...next, updatedAt: now, revision: record.revision + 1 };
  });
