import {
  RecordedTrace,
  ResearchRecipe,
  RunArtifact,
  RunArtifactEntry,
  type RunEvidence,
  RunEvidenceRecord,
  type RunId,
  type RunRecord,
  storedDecoder,
} from "@gleaner/core";
import * as Effect from "effect/Effect";
import * as Schema from "effect/Schema";
import { iso, type Transaction } from "./db.js";
import { artifactBodies, storeMissingBodies } from "./page-bodies.js";
import type { FactsByPage } from "./page-records.js";
import { runValues } from "./records.js";

// Writes shared by finishRun and acceptRun, and the artifact mapping.

/**
 * Overwrites every field of a stored run but its dataset, owner and acceptDrift, which never change.
 * Sent (`Transaction.send`).
 */
export const sendRun = (tx: Transaction, run: RunRecord) => {
  const [id, _datasetId, _ownerId, ...fields] = runValues(run).slice(0, -1);
  return tx
    .send(
      `update runs set status = $2, trigger = $3, checks = $4, row_deltas = $5, error = $6, queued_at = $7,
                     started_at = $8, completed_at = $9, attempts = $10, charged_pages = $11
      where id = $1`,
      [id, ...fields],
    )
    .pipe(Effect.map(Effect.asVoid));
};

export const writeRun = (tx: Transaction, run: RunRecord) => Effect.flatten(sendRun(tx, run));

/**
 * A run's evidence as its statements send it: every part but the trace, which an acceptance's stamp
 * still changes, encoded once, so an acceptance can encode them while its rows are being written.
 * Facts that are exactly the run's pages' records are stored as those pages' keys (`factsAs`,
 * page-records.ts) when the same transaction stores the records.
 * Page bodies are stored apart (`sendBodies`, `storeMissingBodies`).
 */
export interface EncodedEvidence {
  readonly facts: string;
  readonly failures: string;
  readonly plan: string;
  readonly recipe: string | null;
  readonly artifacts: string;
}

export const encodeEvidence = (
  evidence: Omit<RunEvidence, "trace">,
  factsAs: FactsByPage | null = null,
): EncodedEvidence => ({
  facts: JSON.stringify(factsAs ?? evidence.facts),
  failures: JSON.stringify(evidence.failures),
  plan: JSON.stringify(evidence.plan ?? null),
  recipe: evidence.recipe ? JSON.stringify(evidence.recipe) : null,
  artifacts: JSON.stringify(
    evidence.artifacts.map((artifact, index) => ({
      position: index,
      id: artifact.id,
      kind: artifact.kind,
      url: artifact.url,
      content_type: artifact.contentType,
      sha256: artifact.sha256,
      size: artifact.size,
      truncated: artifact.truncated,
      created_at: artifact.createdAt,
    })),
  ),
});

/**
 * Replaces a run's evidence whole (memory keeps one RunEvidence per run and overwrites it), bodies
 * aside (`sendMissingBodies`), in one statement (decision 0035: each statement of an acceptance is a
 * round trip, ~0.6 ms of an unchanged re-run's). Artifacts get their own rows so one can be read
 * without loading the rest; their order is kept: each position is written over, and positions past
 * the new artifacts are deleted (the two touch different rows, as one statement's parts must). The
 * in-flight trace goes: the final trace is in run_evidence now. Sent (`Transaction.send`).
 */
export const sendEvidence = (tx: Transaction, runId: RunId, trace: RunEvidence["trace"], encoded: EncodedEvidence) =>
  Effect.map(
    tx.send(
      `with evidence as (
         insert into run_evidence (run_id, trace, facts, failures, plan, recipe) values ($1, $2, $3, $4, $5, $6)
         on conflict (run_id) do update
         set trace = excluded.trace, facts = excluded.facts, failures = excluded.failures, plan = excluded.plan,
             recipe = excluded.recipe
       ),
       progress as (delete from run_trace_progress where run_id = $1),
       artifacts as (
         select * from json_to_recordset($7::json) as a(position integer, id text, kind text, url text,
                  content_type text, sha256 text, size integer, truncated boolean, created_at timestamptz)
       ),
       beyond as (delete from run_artifacts where run_id = $1 and position >= (select count(*) from artifacts))
       insert into run_artifacts (run_id, position, id, kind, url, content_type, sha256, size, truncated, body, created_at)
       select $1, a.position, a.id, a.kind, a.url, a.content_type, a.sha256, a.size, a.truncated, null, a.created_at
         from artifacts a
       on conflict (run_id, position) do update
       set id = excluded.id, kind = excluded.kind, url = excluded.url, content_type = excluded.content_type,
           sha256 = excluded.sha256, size = excluded.size, truncated = excluded.truncated, body = null,
           created_at = excluded.created_at`,
      [runId, JSON.stringify(trace), encoded.facts, encoded.failures, encoded.plan, encoded.recipe, encoded.artifacts],
    ),
    Effect.asVoid,
  );

/** Writes a run's evidence whole, its page bodies included (each once per digest). */
export const writeEvidence = (tx: Transaction, runId: RunId, evidence: RunEvidence) =>
  Effect.gen(function* () {
    yield* Effect.flatten(sendEvidence(tx, runId, evidence.trace, encodeEvidence(evidence)));
    yield* storeMissingBodies(tx, artifactBodies(evidence.artifacts));
  });

export interface ArtifactRow {
  readonly run_id: string;
  readonly id: string;
  readonly kind: string;
  readonly url: string;
  readonly content_type: string;
  readonly sha256: string;
  readonly size: number;
  readonly truncated: boolean;
  readonly body: Buffer | null;
  readonly created_at: Date;
}

/** An artifact without its body (the artifacts index reads none). Select `from run_artifacts a`. */
export const artifactEntryColumns =
  "a.run_id, a.id, a.kind, a.url, a.content_type, a.sha256, a.size, a.truncated, a.created_at";

/**
 * An artifact with its body: its own (written before page_bodies existed) or the one stored for its
 * digest. Select `from run_artifacts a`.
 */
export const artifactColumns = `${artifactEntryColumns},
  coalesce(a.body, (select p.body from page_bodies p where p.sha256 = a.sha256 and not a.truncated)) as body`;

const decodeArtifact = storedDecoder(RunArtifact, "PostgreSQL", "artifact");
const decodeArtifactEntry = storedDecoder(RunArtifactEntry, "PostgreSQL", "artifact");

const artifactFields = (row: Omit<ArtifactRow, "body">) => ({
  id: row.id,
  runId: row.run_id,
  kind: row.kind,
  url: row.url,
  contentType: row.content_type,
  sha256: row.sha256,
  size: row.size,
  truncated: row.truncated,
  createdAt: iso(row.created_at),
});

export const toArtifact = (row: ArtifactRow) =>
  decodeArtifact({ ...artifactFields(row), body: row.body === null ? null : row.body.toString("utf8") });

export const toArtifactEntry = (row: Omit<ArtifactRow, "body">) => decodeArtifactEntry(artifactFields(row));

const decodeRecipe = storedDecoder(Schema.NullOr(ResearchRecipe), "PostgreSQL", "research recipe");

/** run_evidence's recipe column as pg parses it (null for a deterministic run), decoded. */
export const toRecipe = (runId: RunId, recipe: unknown) => decodeRecipe(recipe, runId);

/** run_evidence's JSON columns as pg parses them: decoded, never cast (`recipe` null when none). */
export interface EvidenceRow {
  readonly trace: unknown;
  readonly facts: unknown;
  readonly failures: unknown;
  readonly plan: unknown;
  readonly recipe: unknown;
}

const decodeEvidence = storedDecoder(RunEvidenceRecord, "PostgreSQL", "run evidence");

export const toEvidence = (runId: RunId, row: EvidenceRow) =>
  decodeEvidence(
    {
      trace: row.trace,
      facts: row.facts,
      failures: row.failures,
      plan: row.plan ?? null,
      ...(row.recipe === null ? {} : { recipe: row.recipe }),
    },
    runId,
  );

const decodeTrace = storedDecoder(RecordedTrace, "PostgreSQL", "run trace");

/** The trace of a run in flight, kept as progress. */
export const toTrace = (runId: RunId, trace: unknown) => decodeTrace(trace, runId);
