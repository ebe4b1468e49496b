import * as Schema from "effect/Schema";
import { ColumnType } from "./column.js";

/** What a run does: the `kind` of endpoint 10's optional body (CreateRunRequest in requests-runs.ts). */
export const RunKind = Schema.Literal("deterministic", "research");
export type RunKind = typeof RunKind.Type;

export const EntityKind = Schema.Literal("company", "person", "product", "event", "trend", "other");
export type EntityKind = typeof EntityKind.Type;

const Text = (max: number) => Schema.String.pipe(Schema.maxLength(max));

/** The planning output: what the model made of the question and columns. */
export const ResearchPlan = Schema.Struct({
  entityKind: EntityKind,
  queries: Schema.Array(Text(300)),
  entityNaming: Text(500),
  columnHints: Schema.Array(Schema.Struct({ column: Text(80), hint: Text(500) })),
});
export type ResearchPlan = typeof ResearchPlan.Type;

/** One cell as the model returns it: a value with the verbatim quote it came from, or "not on this page". */
export const CandidateCell = Schema.Struct({
  column: Text(80),
  status: Schema.Literal("found", "not_on_page"),
  value: Schema.NullOr(Text(2000)),
  quote: Schema.NullOr(Text(2000)),
});
export type CandidateCell = typeof CandidateCell.Type;

export const CandidateRow = Schema.Struct({
  entity: Schema.Struct({ kind: EntityKind, name: Text(200), aliases: Schema.Array(Text(200)) }),
  cells: Schema.Array(CandidateCell),
});
export type CandidateRow = typeof CandidateRow.Type;

/** The extraction output for one page. More than 25 rows are cut to 25 by the engine. */
export const ExtractionOutput = Schema.Struct({ rows: Schema.Array(CandidateRow) });
export type ExtractionOutput = typeof ExtractionOutput.Type;

/**
 * The pinned research recipe (GET /v1/runs/{id}/artifacts `recipe`): everything that decided the
 * run's answers, never a secret. SPEC.md leaves its fields open; these are Gleaner's.
 */
export const ResearchRecipe = Schema.Struct({
  version: Schema.Literal(1),
  question: Schema.String,
  columns: Schema.Array(
    Schema.Struct({
      id: Schema.String,
      name: Schema.String,
      label: Schema.String,
      type: ColumnType,
      description: Schema.NullOr(Schema.String),
    }),
  ),
  plan: ResearchPlan,
  model: Schema.Struct({ provider: Schema.String, modelId: Schema.String }),
  searchEngine: Schema.NullOr(Schema.String),
  promptVersion: Schema.String,
  limits: Schema.Struct({
    maxPages: Schema.Int,
    maxItems: Schema.Int,
    maxQueries: Schema.Int,
    maxRowsPerPage: Schema.Int,
  }),
  usage: Schema.optional(
    Schema.Struct({
      generations: Schema.Int.annotations({ description: "Answers the language model gave this run." }),
      inputTokens: Schema.Int.annotations({ description: "Prompt tokens the model reported, summed over the run." }),
      outputTokens: Schema.Int.annotations({
        description: "Completion tokens the model reported, summed over the run.",
      }),
    }).annotations({
      description:
        "Token usage the language model reported for this run's generations, up to where the run stopped " +
        "(absent for runs recorded before usage was kept).",
    }),
  ),
}).annotations({ identifier: "ResearchRecipe" });
export type ResearchRecipe = typeof ResearchRecipe.Type;
