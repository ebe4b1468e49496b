import * as Schema from "effect/Schema";
import { Scalar } from "./row.js";

/** The stable codes of the drift rule's findings (docs/decisions/0040-drift-holds.md). */
export const DriftCode = Schema.Literal("drift_record_count", "drift_gone_rows", "drift_fill_rate");
export type DriftCode = typeof DriftCode.Type;

/** A row the rule names: what the dataset had, and what the run read instead (null: nothing). */
export const DriftExample = Schema.Struct({
  /** The row's key (`entity=` in diagnostics). */
  entity: Schema.String,
  rowId: Schema.NullOr(Schema.String),
  /** The page the run read it from, or, for a row the run did not find, the page it was last seen on. */
  url: Schema.NullOr(Schema.String),
  /** The record's position on `url` when the run read it; null when it did not. */
  index: Schema.NullOr(Schema.NonNegativeInt),
  previous: Scalar,
  read: Scalar,
});
export type DriftExample = typeof DriftExample.Type;

/** One tripped rule: its figures before and after the run, in plain words, with a few examples. */
export const DriftFinding = Schema.Struct({
  code: DriftCode,
  /** The column whose fill rate fell (its id and name); null for the row-count rules. */
  fieldId: Schema.NullOr(Schema.String),
  column: Schema.NullOr(Schema.String),
  /** Records or rows counted (record count, gone rows), or the fill rate as a fraction 0..1. */
  before: Schema.Number,
  after: Schema.Number,
  /** How many rows `before` is taken over, and how many records `after` is. */
  rowsBefore: Schema.NonNegativeInt,
  recordsAfter: Schema.NonNegativeInt,
  message: Schema.String,
  examples: Schema.Array(DriftExample).pipe(Schema.maxItems(5)),
}).annotations({ identifier: "DriftFinding" });
export type DriftFinding = typeof DriftFinding.Type;

/** What the drift rule found about a run that passed its checks (empty `findings`: nothing tripped). */
export const DriftReport = Schema.Struct({
  /** Present rows before the run, and the distinct records the run read. */
  presentRows: Schema.NonNegativeInt,
  records: Schema.NonNegativeInt,
  findings: Schema.Array(DriftFinding),
  /** The run was asked to be accepted despite drift (`acceptDrift`), or the owner accepted it. */
  accepted: Schema.Boolean,
}).annotations({ identifier: "DriftReport" });
export type DriftReport = typeof DriftReport.Type;
