import { type AllowList, checkUrl } from "../reading/target-policy.js";
import type { ErrorDetail } from "../errors.js";
import type { ColumnInput, DatasetColumn } from "../schema/column.js";
import type { CreateDatasetRequest } from "../schema/dataset.js";
import { type FieldId, newId } from "../schema/ids.js";
import type { Source } from "../schema/source.js";
import { unsupportedSelectorPart } from "./selector.js";

/**
 * The rules a CreateDatasetRequest must meet beyond its shape (SPEC.md "Source" rules). Each
 * problem names the JSON pointer of the value at fault; all problems are reported at once.
 */
export const createDatasetProblems = (request: CreateDatasetRequest): ErrorDetail[] => [
  ...columnProblems(request.columns, "create"),
  ...sourceProblems(request.source, request.columns),
];

const collectedTypes = new Set(["string", "number", "boolean"]);

export const columnProblems = (columns: ReadonlyArray<ColumnInput>, mode: "create" | "update"): ErrorDetail[] => {
  const problems: ErrorDetail[] = [];
  const seen = new Map<string, number>();
  columns.forEach((column, i) => {
    if (mode === "create" && column.id !== undefined) {
      problems.push({ path: `/columns/${i}/id`, message: "must not be supplied; the service allocates column ids" });
    }
    const earlier = seen.get(column.name);
    if (earlier !== undefined) {
      problems.push({
        path: `/columns/${i}/name`,
        message: `duplicates the name of /columns/${earlier} ("${column.name}")`,
      });
    } else seen.set(column.name, i);
    if (column.ownership === "collected" && !collectedTypes.has(column.type)) {
      problems.push({
        path: `/columns/${i}/type`,
        message: `a collected column must be string, number or boolean, not ${column.type}`,
      });
    }
    if (column.ownership === "user" && column.key) {
      problems.push({ path: `/columns/${i}/key`, message: "a user-owned column cannot be a key" });
    }
  });
  return problems;
};

const selectorProblem = (path: string, selector: string | undefined): ErrorDetail[] => {
  if (selector === undefined) return [];
  const problem = unsupportedSelectorPart(selector);
  return problem ? [{ path, message: `selector "${selector}" ${problem}` }] : [];
};

const sourceProblems = (source: Source, columns: ReadonlyArray<ColumnInput>): ErrorDetail[] => {
  const problems: ErrorDetail[] = [];
  if (source.version !== 1) problems.push({ path: "/source/version", message: "must equal 1" });
  problems.push(...selectorProblem("/source/itemSelector", source.itemSelector));

  // Columns and fields pair up one to one by name.
  const fieldIndex = new Map<string, number>();
  source.fields.forEach((field, j) => {
    const base = `/source/fields/${j}`;
    if (fieldIndex.has(field.name)) {
      problems.push({
        path: `${base}/name`,
        message: `"${field.name}" has another source field; each column has exactly one read`,
      });
    } else fieldIndex.set(field.name, j);
    const column = columns.find((c) => c.name === field.name);
    if (!column) problems.push({ path: `${base}/name`, message: `"${field.name}" is not the name of any column` });
    else if (column.ownership !== "collected") {
      problems.push({
        path: `${base}/name`,
        message: `"${field.name}" is a user-owned column; only collected columns are read`,
      });
    }
    problems.push(...selectorProblem(`${base}/read/selector`, field.read.selector));
    if (field.read.kind === "attribute" && field.read.attribute === undefined) {
      problems.push({ path: `${base}/read/attribute`, message: 'is required when kind is "attribute"' });
    }
    if (field.read.kind === "text" && field.read.attribute !== undefined) {
      problems.push({ path: `${base}/read/attribute`, message: 'is only used when kind is "attribute"' });
    }
  });
  columns.forEach((column, i) => {
    if (column.ownership === "collected" && !fieldIndex.has(column.name)) {
      problems.push({
        path: `/columns/${i}/name`,
        message: `collected column "${column.name}" has no source field to read it`,
      });
    }
  });

  // Identity: unique, collected, and exactly the key-flagged columns, in order.
  const identityPath = source.identity.kind === "source-key" ? "/source/identity/field" : "/source/identity/fields";
  const identity = source.identity.kind === "source-key" ? [source.identity.field] : source.identity.fields;
  identity.forEach((name, k) => {
    const path = source.identity.kind === "source-key" ? identityPath : `${identityPath}/${k}`;
    if (identity.indexOf(name) !== k) problems.push({ path, message: `"${name}" appears twice in the identity` });
    const column = columns.find((c) => c.name === name);
    if (!column) problems.push({ path, message: `"${name}" is not the name of any column` });
    else if (column.ownership !== "collected") problems.push({ path, message: `"${name}" must be a collected column` });
  });
  const keys = columns.filter((c) => c.key).map((c) => c.name);
  if (keys.join("\u0000") !== identity.join("\u0000")) {
    problems.push({
      path: identityPath,
      message: `must equal the columns flagged as key, in column order (keys: ${keys.length ? keys.join(", ") : "none"}; identity: ${identity.join(", ")})`,
    });
  }

  // Pagination.
  const pagination = source.pagination;
  if (pagination.kind === "next-link")
    problems.push(...selectorProblem("/source/pagination/selector", pagination.selector));
  if (pagination.kind === "url-pattern") {
    problems.push(...selectorProblem("/source/pagination/endSelector", pagination.endSelector));
    const placeholders = pagination.pattern.split("{page}").length - 1;
    if (placeholders !== 1) {
      problems.push({
        path: "/source/pagination/pattern",
        message: `must contain exactly one {page} placeholder (found ${placeholders})`,
      });
    } else {
      const first = pagination.pattern.replace("{page}", String(pagination.startPage));
      if (first !== source.url) {
        problems.push({ path: "/source/url", message: `must equal the pagination pattern at startPage (${first})` });
      }
    }
  }
  return problems;
};

/**
 * Addresses that can be judged without DNS: a source whose host is an IP literal in a refused range,
 * or `localhost`, can never be read, so it is refused when the dataset is created (names that need
 * DNS are still checked at read time, on every address they resolve to).
 */
export const sourceTargetProblems = (request: CreateDatasetRequest, allow: AllowList): ErrorDetail[] => {
  const problems: ErrorDetail[] = [];
  const refuse = (path: string, url: string) => {
    const verdict = checkUrl(url, allow);
    if (!verdict.allowed) problems.push({ path, message: `is not a public address: ${verdict.why}` });
  };
  refuse("/source/url", request.source.url);
  const pagination = request.source.pagination;
  if (pagination.kind === "url-pattern") {
    refuse("/source/pagination/pattern", pagination.pattern.replace("{page}", String(pagination.startPage)));
  }
  return problems;
};

/** A column as first stored, from its input: a fresh field id, the label defaulting to the name. */
export const newColumn = (input: ColumnInput): DatasetColumn => ({
  id: newId<FieldId>(),
  label: input.label ?? input.name,
  ownership: input.ownership,
  name: input.name,
  type: input.type,
  key: input.key,
  ...(input.description !== undefined ? { description: input.description } : {}),
});
