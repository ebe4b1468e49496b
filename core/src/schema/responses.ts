import * as Schema from "effect/Schema";
import { DateTime, RunId } from "./ids.js";
import { ResearchRecipe } from "./research.js";
import { DatasetRow } from "./row.js";
import { RunDiagnostics } from "./diagnostics.js";
import { Run, RunTrace } from "./run.js";

/**
 * The envelopes endpoints answer with, beside the resources themselves. The host's route table
 * names them for each operation, so the OpenAPI document and the contract tests use these exact
 * schemas.
 */
export const RowList = Schema.Struct({
  data: Schema.Array(DatasetRow),
  nextCursor: Schema.NullOr(Schema.String).annotations({
    description: "Pass as `cursor` to read the next page; null on the last page.",
  }),
}).annotations({ identifier: "RowList" });

export const RunList = Schema.Struct({ data: Schema.Array(Run) }).annotations({ identifier: "RunList" });

export const RunResponse = Schema.Struct({ run: Run }).annotations({ identifier: "RunResponse" });

export const RunCreated = Schema.Struct({
  runId: RunId,
  creditsRemaining: Schema.Int.annotations({
    description: "The balance when the run was queued; nothing is charged until the run is accepted.",
  }),
}).annotations({ identifier: "RunCreated" });

export const TraceResponse = Schema.Struct({ trace: RunTrace }).annotations({ identifier: "TraceResponse" });

const artifactFields = {
  id: Schema.String,
  runId: RunId,
  kind: Schema.Literal("page", "planning output", "cleaned page text", "extraction output").annotations({
    description:
      "What the body is: `page` (a page as read by a deterministic run), or a research run's provider boundary " +
      "record: `planning output`, `cleaned page text`, `extraction output` (docs/decisions/0014-research-runs.md).",
  }),
  url: Schema.NullOr(Schema.String).annotations({
    description: "The page the body is about (for a research run's planning output: the dataset's source URL).",
  }),
  contentType: Schema.String,
  sha256: Schema.String.annotations({ description: "SHA-256 of the whole body, hex." }),
  size: Schema.Int.annotations({ description: "Size of the whole body in bytes." }),
  truncated: Schema.Boolean.annotations({ description: "True when the body exceeded 64 KiB and was not kept." }),
  createdAt: DateTime,
};

export const RunArtifactSummary = Schema.Struct(artifactFields).annotations({ identifier: "RunArtifactSummary" });

export const RunArtifactWithBody = Schema.Struct({
  ...artifactFields,
  body: Schema.NullOr(Schema.String).annotations({ description: "The body; null when it exceeded 64 KiB." }),
}).annotations({ identifier: "RunArtifact" });

export const ArtifactIndex = Schema.Struct({
  runId: RunId,
  recipe: Schema.NullOr(ResearchRecipe).annotations({
    description: "The pinned research recipe; null for deterministic runs.",
  }),
  truncated: Schema.Boolean.annotations({ description: "True when the run has more than 200 artifacts." }),
  artifacts: Schema.Array(RunArtifactSummary).pipe(Schema.maxItems(200)),
}).annotations({ identifier: "ArtifactIndex" });

export const ArtifactResponse = Schema.Struct({ artifact: RunArtifactWithBody }).annotations({
  identifier: "ArtifactResponse",
});

export const DiagnosticsResponse = Schema.Struct({ diagnostics: RunDiagnostics }).annotations({
  identifier: "DiagnosticsResponse",
});

export const Health = Schema.Struct({
  status: Schema.Literal("ok", "unavailable"),
  checks: Schema.optional(
    Schema.Record({ key: Schema.String, value: Schema.String }).annotations({
      description: "Each dependency probed (storage, queue) and what it answered.",
    }),
  ),
}).annotations({ identifier: "Health" });
