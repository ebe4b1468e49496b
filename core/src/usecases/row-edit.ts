import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import { Conflict, type ErrorDetail, ValidationError } from "../errors.js";
import { Storage } from "../ports/storage.js";
import type { RowRecord, StoredRevision } from "../run-domain.js";
import type { DatasetColumn } from "../schema/column.js";
import { sha256HexOf } from "../digest.js";
import { type DatasetId, type FieldId, newId, type OwnerId, type RevisionId } from "../schema/ids.js";
import type { EditRowRequest } from "../schema/requests-rows.js";
import type { CellOverrides, FieldEvidence, MissingReasons, RowData, RowRevision, Scalar } from "../schema/row.js";
import { nowIso } from "../time.js";
import { findRow } from "./rows.js";

/** The API view of a stored revision: the feed's `before` fields stay out of endpoint 7's answer. */
export const toRowRevision = (r: StoredRevision): RowRevision => ({
  id: r.id,
  datasetId: r.datasetId,
  rowId: r.rowId,
  sequence: r.sequence,
  schemaVersion: r.schemaVersion,
  previousRevisionId: r.previousRevisionId,
  runId: r.runId,
  actorId: r.actorId,
  requestId: r.requestId,
  requestHash: r.requestHash,
  origin: r.origin,
  kind: r.kind,
  changedFieldIds: r.changedFieldIds,
  data: r.data,
  evidence: r.evidence,
  overrides: r.overrides,
  missingReasons: r.missingReasons,
  presence: r.presence,
  createdAt: r.createdAt,
});

/** JSON with object keys sorted at every level, so equal payloads hash equally. */
const canonicalJson = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
};

/**
 * What makes two edits "the same request": the row, the revision it was written against and the
 * change itself (reset ids as a set). Hashed with SHA-256 (Web Crypto) into `sha256:<hex>`.
 */
export const editRequestHash = (rowId: string, request: EditRowRequest) =>
  Effect.promise(async () => {
    const payload = canonicalJson({
      rowId,
      expectedRevisionId: request.expectedRevisionId,
      values: request.values ?? {},
      resetFieldIds: [...(request.resetFieldIds ?? [])].sort(),
    });
    return `sha256:${await sha256HexOf(payload)}`;
  });

const typeProblem = (column: DatasetColumn, value: Scalar): string | null => {
  if (value === null) return null;
  switch (column.type) {
    case "string":
      return typeof value === "string" ? null : "must be a string or null (the column's type is string)";
    case "number":
      return typeof value === "number" && Number.isFinite(value)
        ? null
        : "must be a number or null (the column's type is number)";
    case "boolean":
      return typeof value === "boolean" ? null : "must be true, false or null (the column's type is boolean)";
    case "date":
      return typeof value === "string" &&
        /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/.test(value) &&
        !Number.isNaN(Date.parse(value))
        ? null
        : "must be an ISO 8601 date (2026-01-31) or date-time, or null (the column's type is date)";
    case "url":
      return typeof value === "string" && URL.canParse(value) && /^https?:$/.test(new URL(value).protocol)
        ? null
        : "must be an absolute http(s) URL or null (the column's type is url)";
  }
};

const pointer = (...parts: string[]) => `/${parts.map((p) => p.replace(/~/g, "~0").replace(/\//g, "~1")).join("/")}`;

/** Problems that depend only on the dataset's columns, not on the row's current state. */
const columnProblems = (columns: ReadonlyArray<DatasetColumn>, request: EditRowRequest): ErrorDetail[] => {
  const byId = new Map(columns.map((c) => [c.id as string, c]));
  const problems: ErrorDetail[] = [];
  if (request.values === undefined && request.resetFieldIds === undefined) {
    problems.push({ path: "/", message: "must have values or resetFieldIds" });
  }
  for (const [fieldId, value] of Object.entries(request.values ?? {})) {
    const column = byId.get(fieldId);
    const path = pointer("values", fieldId);
    if (!column) problems.push({ path, message: "is not a field of this dataset" });
    else if (column.key) problems.push({ path, message: `is the identity field "${column.name}", which is read-only` });
    else {
      const problem = typeProblem(column, value);
      if (problem) problems.push({ path, message: `(field "${column.name}") ${problem}` });
    }
  }
  (request.resetFieldIds ?? []).forEach((fieldId, i) => {
    const path = pointer("resetFieldIds", String(i));
    if (!byId.has(fieldId)) problems.push({ path, message: `${fieldId} is not a field of this dataset` });
    else if (request.values && fieldId in request.values) {
      problems.push({ path, message: `${fieldId} is also set in values; a field is either set or reset` });
    }
  });
  return problems;
};

/** Problems judged against the current row, which the client has proven it read (expectedRevisionId). */
const rowProblems = (row: RowRecord, request: EditRowRequest): ErrorDetail[] =>
  (request.resetFieldIds ?? []).flatMap((fieldId, i) =>
    row.overrides[fieldId]
      ? []
      : [
          {
            path: pointer("resetFieldIds", String(i)),
            message: `${fieldId} is not overridden; only overridden fields can be reset`,
          },
        ],
  );

const invalid = (details: ErrorDetail[]) =>
  new ValidationError({ message: `The edit is invalid: ${details[0]?.path} ${details[0]?.message}.`, details });

const reused = () =>
  new Conflict({
    code: "request_id_reused",
    message: "This requestId was already used for a different edit; use a new requestId for a new edit.",
  });

/**
 * The row after the edit. A collected cell's first manual value moves the source's value,
 * evidence and missing reason into `overrides` (the snapshot a reset restores and runs refresh);
 * the manual value itself has no evidence and no missing reason. User-owned cells hold no source
 * value, so they are simply set.
 */
export const applyValues = (row: RowRecord, columns: ReadonlyArray<DatasetColumn>, request: EditRowRequest) => {
  const byId = new Map(columns.map((c) => [c.id as string, c]));
  const data: Record<string, RowData[string]> = { ...row.data };
  const evidence: Record<string, FieldEvidence[string]> = { ...row.evidence };
  const missing: Record<string, MissingReasons[string]> = { ...row.missingReasons };
  const overrides: Record<string, CellOverrides[string]> = { ...row.overrides };
  for (const [fieldId, value] of Object.entries(request.values ?? {})) {
    if (byId.get(fieldId)?.ownership === "collected" && !overrides[fieldId]) {
      const reason = row.missingReasons[fieldId];
      overrides[fieldId] = {
        value: row.data[fieldId] ?? null,
        evidence: row.evidence[fieldId] ?? [],
        ...(reason ? { missingReason: reason } : {}),
      };
    }
    data[fieldId] = value;
    delete evidence[fieldId];
    delete missing[fieldId];
  }
  for (const fieldId of request.resetFieldIds ?? []) {
    const snapshot = overrides[fieldId];
    if (!snapshot) continue;
    data[fieldId] = snapshot.value;
    evidence[fieldId] = snapshot.evidence;
    if (snapshot.missingReason) missing[fieldId] = snapshot.missingReason;
    else delete missing[fieldId];
    delete overrides[fieldId];
  }
  return { data, evidence, missingReasons: missing, overrides };
};

/** The original revision when the request is a retry of a stored edit; a refusal when the id was reused. */
const replayOf = (datasetId: DatasetId, requestId: string, requestHash: string) =>
  Effect.gen(function* () {
    const found = yield* (yield* Storage).findRevisionByRequest(datasetId, requestId);
    if (Option.isNone(found)) return Option.none<RowRevision>();
    if (found.value.requestHash !== requestHash) return yield* Effect.fail(reused());
    return Option.some(toRowRevision(found.value));
  });

/**
 * Endpoint 7. Order of judgement: body shape (422) -> dataset and row (404) -> a retry of a stored
 * request (200 with the original revision, or 409 `request_id_reused`) -> column rules (422) ->
 * `expectedRevisionId` is the head (409 `stale_revision`) -> reset rules on that head (422) ->
 * compare-and-set write, which decides races: exactly one edit of a revision wins.
 */
export const editRow = (ownerId: OwnerId, datasetId: string, rowId: string, request: EditRowRequest) =>
  Effect.gen(function* () {
    const { dataset, row } = yield* findRow(ownerId, datasetId, rowId);
    const requestHash = yield* editRequestHash(row.id, request);
    const replay = yield* replayOf(dataset.id, request.requestId, requestHash);
    if (Option.isSome(replay)) return replay.value;

    const columnIssues = columnProblems(dataset.columns, request);
    if (columnIssues.length > 0) return yield* Effect.fail(invalid(columnIssues));
    if (row.revisionId !== request.expectedRevisionId) {
      return yield* Effect.fail(
        new Conflict({
          code: "stale_revision",
          message: `The row's current revision is ${row.revisionId}, not ${request.expectedRevisionId}; read the row again.`,
        }),
      );
    }
    const rowIssues = rowProblems(row, request);
    if (rowIssues.length > 0) return yield* Effect.fail(invalid(rowIssues));

    const now = yield* nowIso;
    const next = applyValues(row, dataset.columns, request);
    // The fields the edit names, in column order: each is an explicit act on that cell.
    const named = new Set([...Object.keys(request.values ?? {}), ...(request.resetFieldIds ?? [])]);
    const changedFieldIds = dataset.columns.filter((c) => named.has(c.id)).map((c) => c.id as FieldId);
    const revisionId = newId<RevisionId>();
    const updated: RowRecord = { ...row, ...next, revisionId, updatedAt: now };
    const storage = yield* Storage;
    const stored = yield* storage
      .applyEdit(updated, request.expectedRevisionId as RevisionId, {
        id: revisionId,
        datasetId: dataset.id,
        rowId: row.id,
        schemaVersion: dataset.schemaVersion,
        previousRevisionId: row.revisionId,
        runId: null,
        actorId: ownerId,
        requestId: request.requestId,
        requestHash,
        origin: "user",
        kind: "updated",
        changedFieldIds,
        data: updated.data,
        evidence: updated.evidence,
        overrides: updated.overrides,
        missingReasons: updated.missingReasons,
        presence: updated.presence,
        createdAt: now,
        before: row.data,
        beforeOverrides: row.overrides,
      })
      .pipe(
        Effect.map(toRowRevision),
        // Two retries racing: the loser finds the winner's revision and answers as a retry would.
        Effect.catchIf(
          (e) => e._tag === "Conflict" && e.code === "duplicate_request",
          () =>
            Effect.flatMap(replayOf(dataset.id, request.requestId, requestHash), (found) =>
              Option.isSome(found) ? Effect.succeed(found.value) : Effect.fail(reused()),
            ),
        ),
      );
    return stored;
  });
