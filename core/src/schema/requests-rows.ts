import * as Schema from "effect/Schema";
import { DateTime, RevisionId } from "./ids.js";
import { QueryInt } from "./query.js";
import { RowStatus, Scalar } from "./row.js";

/** Endpoint 5 query. `status` arrives as a string, or an array when repeated. */
export const RowListQuery = Schema.Struct({
  since: Schema.optional(DateTime),
  status: Schema.optional(Schema.Union(RowStatus, Schema.Array(RowStatus))),
  cursor: Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(1000))),
  limit: Schema.optionalWith(QueryInt(1, 500), { default: () => 100 }),
});
export type RowListQuery = typeof RowListQuery.Type;

const Sequence = QueryInt(0);

/** Endpoint 8 query. The rules between parameters (after <= through, fieldId needs rowId, changedFieldId not with fieldId) live in the use case. */
export const ChangeQuery = Schema.Struct({
  after: Schema.optional(Sequence),
  through: Schema.optional(Sequence),
  limit: Schema.optionalWith(QueryInt(1, 100), { default: () => 50 }),
  rowId: Schema.optional(Schema.UUID),
  fieldId: Schema.optional(Schema.UUID),
  // Described on the property, not the UUID: a refusal then says "Expected a Universally Unique Identifier".
  changedFieldId: Schema.optional(Schema.UUID).annotations({
    description:
      "An extension of SPEC.md: only the revisions that changed this field, across every row (the feed filtered " +
      "by one column), paged like the feed. Not with `fieldId`.",
  }),
});
export type ChangeQuery = typeof ChangeQuery.Type;

/** Endpoint 7 body (SPEC.md EditRowRequest). Rules that need the dataset live in usecases/row-edit.ts. */
export const EditRowRequest = Schema.Struct({
  expectedRevisionId: RevisionId,
  requestId: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(128)),
  values: Schema.optional(
    Schema.Record({ key: Schema.String, value: Scalar }).pipe(
      Schema.filter((values) => {
        const count = Object.keys(values).length;
        return (count >= 1 && count <= 50) || "must have 1 to 50 properties";
      }),
    ),
  ),
  resetFieldIds: Schema.optional(
    Schema.Array(Schema.UUID).pipe(
      Schema.minItems(1),
      Schema.maxItems(50),
      Schema.filter((ids) => new Set(ids).size === ids.length || "must not repeat a field id"),
    ),
  ),
}).annotations({ identifier: "EditRowRequest" });
export type EditRowRequest = typeof EditRowRequest.Type;
