import * as Schema from "effect/Schema";
import { FieldId } from "./ids.js";

/** Extraction names: a letter, then letters, digits or underscores (1-80 chars). */
export const ExtractionName = Schema.String.pipe(
  Schema.minLength(1),
  Schema.maxLength(80),
  Schema.pattern(/^[A-Za-z][A-Za-z0-9_]*$/, {
    message: () => "must start with a letter, then letters, digits or underscores (1-80 chars)",
  }),
);

export const ColumnType = Schema.Literal("string", "number", "date", "url", "boolean");
export type ColumnType = typeof ColumnType.Type;
export const Ownership = Schema.Literal("collected", "user");
export type Ownership = typeof Ownership.Type;

export const Label = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(120));
export const Description = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(500));

/** A column as the service returns it: id, label and ownership always present. */
export const DatasetColumn = Schema.Struct({
  id: FieldId,
  label: Label,
  ownership: Ownership,
  name: ExtractionName,
  type: ColumnType,
  key: Schema.Boolean,
  description: Schema.optional(Description),
}).annotations({ identifier: "DatasetColumn" });
export type DatasetColumn = typeof DatasetColumn.Type;

/**
 * A column as a client sends it. `id` is accepted by the shape so that the creation rules can say
 * precisely "must not be supplied" (creation) or "must be an existing id" (update).
 */
export const ColumnInput = Schema.Struct({
  id: Schema.optional(Schema.String),
  label: Schema.optional(Label),
  ownership: Schema.optionalWith(Ownership, { default: () => "collected" as const }),
  name: ExtractionName,
  type: ColumnType,
  key: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  description: Schema.optional(Description),
}).annotations({ identifier: "DatasetColumnInput" });
export type ColumnInput = typeof ColumnInput.Type;
