import * as Schema from "effect/Schema";
import { DriftCode } from "./drift.js";
import { RunId } from "./ids.js";
import { Scalar } from "./row.js";
import { RunStatus, RunTracePhase } from "./run.js";

/** Endpoint 14's payload: SPEC.md's building blocks, and the areas docs/decisions/0013 defines. */
const Count = Schema.Int.pipe(Schema.between(0, Number.MAX_SAFE_INTEGER));
const Text = Schema.String.pipe(Schema.maxLength(1000));

export const DiagnosticStage = Schema.Literal(
  "discovery",
  "selection",
  "retrieval",
  "extraction",
  "validation",
  "reconciliation",
  "output",
);
export const DiagnosticOutcome = Schema.Literal("present", "absent", "unknown", "ambiguous");
export const DiagnosticBasis = Schema.Literal("recorded", "replay");

export const DiagnosticFinding = Schema.Struct({
  code: Schema.String.pipe(Schema.maxLength(100)),
  message: Text,
}).annotations({ identifier: "DiagnosticFinding" });
export const DiagnosticUnknowns = Schema.Array(Text).pipe(Schema.maxItems(20));

const Counts = Schema.Struct({ present: Count, absent: Count, unknown: Count, ambiguous: Count, recovered: Count });

export const RunLossSummary = Schema.Struct({
  basis: DiagnosticBasis,
  attemptId: Schema.NullOr(Schema.String),
  outputComplete: Schema.Boolean,
  totals: Schema.Struct({ ...Counts.fields, entities: Count }),
  entities: Schema.Array(
    Schema.Struct({
      entity: Schema.String,
      aliases: Schema.Array(Schema.String),
      outcome: DiagnosticOutcome,
      recovered: Schema.Boolean,
      failureCodes: Schema.Array(Schema.String),
    }),
  ),
  failureGroups: Schema.Array(
    Schema.Struct({
      stage: DiagnosticStage,
      code: Schema.String,
      detail: Schema.String,
      counts: Counts,
      examples: Schema.Array(
        Schema.Struct({ entity: Schema.String, evidenceId: Schema.String, url: Schema.NullOr(Schema.String) }),
      ),
    }),
  ),
  duplicates: Schema.Struct({
    entities: Count,
    examples: Schema.Array(Schema.Struct({ entity: Schema.String, code: Schema.String, evidenceId: Schema.String })),
  }),
  missingCells: Schema.Array(
    Schema.Struct({
      fieldId: Schema.String,
      label: Schema.String,
      observedRows: Count,
      missing: Count,
      reasons: Schema.Record({ key: Schema.String, value: Count }),
      examples: Schema.Array(
        Schema.Struct({
          entity: Schema.String,
          rowId: Schema.NullOr(Schema.String),
          reason: Schema.NullOr(Schema.String),
        }),
      ),
    }),
  ),
  unknowns: DiagnosticUnknowns,
}).annotations({ identifier: "RunLossSummary" });

export const EntityFact = Schema.Struct({
  stage: DiagnosticStage,
  code: Schema.String,
  detail: Schema.String,
  evidenceId: Schema.String,
  failure: Schema.Boolean,
}).annotations({ identifier: "EntityFact" });

export const EntityDiagnosis = Schema.Struct({
  entity: Schema.String,
  basis: DiagnosticBasis,
  attemptId: Schema.NullOr(Schema.String),
  matchedNames: Schema.Array(Schema.String),
  outcome: DiagnosticOutcome,
  field: Schema.NullOr(Schema.String),
  entityFacts: Schema.Array(EntityFact),
  cells: Schema.Array(
    Schema.Struct({
      rowId: Schema.NullOr(Schema.String),
      fieldId: Schema.String,
      value: Schema.Unknown,
      missingReason: Schema.NullOr(Schema.String),
      evidenceIds: Schema.Array(Schema.String),
    }),
  ),
  paths: Schema.Array(
    Schema.Struct({
      url: Schema.String,
      facts: Schema.Array(EntityFact),
      unknownStages: Schema.Array(DiagnosticStage),
      firstFailure: Schema.NullOr(EntityFact),
    }),
  ),
  unknownStages: Schema.Array(DiagnosticStage),
  unknowns: DiagnosticUnknowns,
}).annotations({ identifier: "EntityDiagnosis" });

const Example = Schema.Struct({
  entity: Schema.String,
  rowId: Schema.NullOr(Schema.String),
  reason: Schema.NullOr(Schema.String),
  evidenceId: Schema.String,
});

export const RunDiagnostics = Schema.Struct({
  runId: RunId,
  basis: DiagnosticBasis,
  attemptId: Schema.NullOr(Schema.String),
  status: RunStatus,
  request: Schema.NullOr(
    Schema.Struct({
      recipeVersion: Count,
      schemaVersion: Count,
      source: Schema.Struct({
        url: Schema.String,
        pagination: Schema.String,
        itemSelector: Schema.String,
        identityFieldIds: Schema.Array(Schema.String),
      }),
      /** A search research run: what it searched and how many results it read (its source is the search). */
      search: Schema.optional(
        Schema.Struct({
          engine: Schema.String,
          queries: Schema.Array(Schema.String),
          results: Count,
          read: Count,
          notRead: Count,
        }),
      ),
      limits: Schema.Struct({ maxPages: Count, maxItems: Count, minimumItems: Count }),
      render: Schema.String,
      proxy: Schema.String,
      robots: Schema.Literal("obeyed", "ignored"),
    }),
  ),
  sources: Schema.Array(
    Schema.Struct({
      url: Schema.String,
      outcome: Schema.Literal("read", "refused", "failed"),
      failure: Schema.NullOr(
        Schema.Struct({ reason: Schema.String, status: Schema.NullOr(Schema.Int), detail: Schema.String }),
      ),
      records: Count,
      evidenceIds: Schema.Array(Schema.String),
      /**
       * The page's records were taken from an earlier accepted run's read of the same bytes under
       * the same recipe instead of being parsed (decision 0042); null when the page was parsed.
       */
      reused: Schema.NullOr(
        Schema.Struct({ fromRunId: Schema.String, basis: Schema.Literal("same_digest", "not_modified") }),
      ),
    }),
  ),
  cells: Schema.Array(
    Schema.Struct({
      fieldId: Schema.String,
      label: Schema.String,
      observedRows: Count,
      missing: Count,
      reasons: Schema.Record({ key: Schema.String, value: Count }),
      examples: Schema.Array(Example),
    }),
  ),
  reconciliation: Schema.NullOr(
    Schema.Struct({
      applied: Schema.Boolean,
      new: Count,
      changed: Count,
      unchanged: Count,
      gone: Count,
      recovered: Count,
      duplicates: RunLossSummary.fields.duplicates,
      overridesKept: Schema.Struct({
        cells: Count,
        examples: Schema.Array(
          Schema.Struct({ entity: Schema.String, rowId: Schema.NullOr(Schema.String), fieldId: Schema.String }),
        ),
      }),
    }),
  ),
  completion: Schema.Struct({
    coverage: Schema.NullOr(Schema.Struct({ complete: Schema.Boolean, message: Schema.NullOr(Schema.String) })),
    checks: Schema.Array(
      Schema.Struct({
        checkId: Schema.String,
        passed: Schema.Boolean,
        message: Schema.NullOr(Schema.String),
        /** How many records the check names; `records` shows the first 20. */
        recordsNamed: Count,
        records: Schema.Array(
          Schema.Struct({ entity: Schema.String, url: Schema.String, evidenceId: Schema.NullOr(Schema.String) }),
        ),
      }),
    ),
    outputComplete: Schema.Boolean,
  }),
  cost: Schema.Struct({
    pagesRead: Schema.NullOr(Count),
    pagesNotRead: Schema.NullOr(Count),
    pagesToCharge: Schema.NullOr(Count),
    pagesCharged: Count,
    reason: Schema.String,
  }),
  timing: Schema.Struct({
    queuedAt: Schema.String,
    startedAt: Schema.NullOr(Schema.String),
    completedAt: Schema.NullOr(Schema.String),
    queueMs: Schema.NullOr(Count),
    wallMs: Schema.NullOr(Count),
    phases: Schema.Array(RunTracePhase),
    truncated: Schema.Boolean,
  }),
  observations: Schema.NullOr(
    Schema.Struct({
      pagesRead: Count,
      pagesNotRead: Count,
      records: Count,
      recordsWithoutIdentity: Count,
      entities: Count,
      checks: Count,
      traceSteps: Count,
    }),
  ),
  /** The drift rule's figures (decision 0040): present when it tripped, whether the run was held or accepted. */
  drift: Schema.optional(
    Schema.Struct({
      presentRows: Count,
      records: Count,
      accepted: Schema.Boolean,
      rules: Schema.Array(
        Schema.Struct({
          code: DriftCode,
          fieldId: Schema.NullOr(Schema.String),
          column: Schema.NullOr(Schema.String),
          before: Schema.Number,
          after: Schema.Number,
          rowsBefore: Count,
          recordsAfter: Count,
          message: Text,
          examples: Schema.Array(
            Schema.Struct({
              entity: Schema.String,
              rowId: Schema.NullOr(Schema.String),
              url: Schema.NullOr(Schema.String),
              evidenceId: Schema.NullOr(Schema.String),
              previous: Scalar,
              read: Scalar,
            }),
          ),
        }),
      ),
    }),
  ),
  findings: Schema.Array(DiagnosticFinding),
  unknowns: DiagnosticUnknowns,
  summary: Schema.optional(RunLossSummary),
  entity: Schema.optional(EntityDiagnosis),
}).annotations({ identifier: "RunDiagnostics" });
export type RunDiagnosticsPayload = typeof RunDiagnostics.Type;
