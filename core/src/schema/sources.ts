import * as Schema from "effect/Schema";
import { ColumnInput, ColumnType, Description, ExtractionName } from "./column.js";
import { Question } from "./dataset.js";
import { MissingReason, Scalar } from "./row.js";
import { CheckResult, ReadFailure } from "./run.js";
import { HttpUrl, RenderMode, Source } from "./source.js";

const Count = Schema.Int.pipe(Schema.greaterThanOrEqualTo(0));

/** POST /v1/sources/preview: a source (and its columns) read as a run would, writing nothing. */
export const PreviewRequest = Schema.Struct({
  source: Source,
  columns: Schema.optional(Schema.Array(ColumnInput).pipe(Schema.minItems(1), Schema.maxItems(50))),
  pages: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 5)), { default: () => 2 }),
}).annotations({ identifier: "PreviewRequest" });
export type PreviewRequest = typeof PreviewRequest.Type;

export const PreviewPage = Schema.Struct({
  url: Schema.String,
  status: Schema.Literal("read", "failed"),
  readFailure: Schema.NullOr(ReadFailure),
  records: Count,
  nextUrl: Schema.NullOr(Schema.String),
}).annotations({ identifier: "PreviewPage" });
export type PreviewPage = typeof PreviewPage.Type;

export const PreviewRecord = Schema.Struct({
  pageUrl: Schema.String,
  index: Count,
  values: Schema.Record({ key: Schema.String, value: Scalar }),
  missingReasons: Schema.Record({ key: Schema.String, value: MissingReason }),
}).annotations({ identifier: "PreviewRecord" });
export type PreviewRecord = typeof PreviewRecord.Type;

export const PreviewField = Schema.Struct({
  name: Schema.String,
  filled: Count,
  missing: Count,
  // Keyed by MissingReason; only the reasons met are present.
  reasons: Schema.Record({ key: Schema.String, value: Count }),
  examples: Schema.Array(Scalar).pipe(Schema.maxItems(3)),
}).annotations({ identifier: "PreviewField" });
export type PreviewField = typeof PreviewField.Type;

export const PreviewWarning = Schema.Struct({
  code: Schema.String,
  message: Schema.String,
  path: Schema.optional(Schema.String),
}).annotations({ identifier: "PreviewWarning" });
export type PreviewWarning = typeof PreviewWarning.Type;

export const Preview = Schema.Struct({
  pages: Schema.Array(PreviewPage),
  records: Schema.Array(PreviewRecord).pipe(Schema.maxItems(100)),
  fields: Schema.Array(PreviewField),
  checks: Schema.Array(CheckResult),
  estimate: Schema.Struct({ complete: Schema.Boolean, pages: Schema.NullOr(Count), credits: Schema.NullOr(Count) }),
  warnings: Schema.Array(PreviewWarning),
}).annotations({ identifier: "Preview" });
export type Preview = typeof Preview.Type;

export const PreviewResponse = Schema.Struct({ preview: Preview }).annotations({ identifier: "PreviewResponse" });

/** A column the owner wants a suggestion to fill (mapped onto what the page holds). */
export const WantedColumn = Schema.Struct({
  name: ExtractionName,
  type: ColumnType,
  description: Schema.optional(Description),
}).annotations({ identifier: "WantedColumn" });
export type WantedColumn = typeof WantedColumn.Type;

/** POST /v1/sources/suggest: sources for the repeated records of one page. */
export const SuggestRequest = Schema.Struct({
  url: HttpUrl,
  render: Schema.optional(RenderMode),
  question: Schema.optional(Question),
  columns: Schema.optional(Schema.Array(WantedColumn).pipe(Schema.minItems(1), Schema.maxItems(50))),
}).annotations({ identifier: "SuggestRequest" });
export type SuggestRequest = typeof SuggestRequest.Type;

export const Suggestion = Schema.Struct({
  name: Schema.String,
  question: Schema.optional(Schema.String),
  columns: Schema.Array(ColumnInput),
  source: Source,
  preview: Preview,
  why: Schema.String,
}).annotations({ identifier: "Suggestion" });
export type Suggestion = typeof Suggestion.Type;

export const SuggestResponse = Schema.Struct({
  page: Schema.Struct({
    url: Schema.String,
    status: Schema.Literal("read", "failed"),
    readFailure: Schema.NullOr(ReadFailure),
  }),
  suggestions: Schema.Array(Suggestion).pipe(Schema.maxItems(5)),
}).annotations({ identifier: "SuggestResponse" });
export type SuggestResponse = typeof SuggestResponse.Type;
