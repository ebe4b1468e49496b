import {
  RecordedTrace,
  ResearchRecipe,
  RunArtifact,
  RunArtifactEntry,
  type RunEvidence,
  RunEvidenceRecord,
  type RunId,
  type StorageFailure,
  storedDecoder,
} from "@gleaner/core";
import * as Effect from "effect/Effect";
import * as Schema from "effect/Schema";
import { iso, recordset, type Sql } from "./db.js";

// A run's evidence: run_evidence (trace, facts, failures, plan, recipe as json), its artifacts in
// run_artifacts (one row each, so one is read without the rest) and their bodies in page_bodies.

/** Bodies per statement: a few tens of MB at most at SPEC's 64 KiB per stored body. */
const bodiesPerStatement = 500;

/**
 * Stores the bodies of `artifacts` page_bodies lacks (one per digest, shared by every run that read
 * the same bytes; ON CONFLICT adds nothing for one stored), leaving out those in `stored`. In digest
 * order, so two transactions storing the same bodies wait for each other in one order, never in a
 * cycle. A statement's bodies travel as one bytea parameter (their UTF-8 end to end, which the server
 * cuts at the offsets sent beside it): a body may hold NUL bytes, which no text parameter can carry.
 */
export const sendBodies = (tx: Sql, artifacts: RunEvidence["artifacts"], stored: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const sent: Array<Effect.Effect<unknown, StorageFailure>> = [];
    const skip = new Set(stored);
    const bodies = new Map<string, string>();
    for (const a of artifacts) if (a.body !== null && !skip.has(a.sha256)) bodies.set(a.sha256, a.body);
    const sorted = [...bodies].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    for (let at = 0; at < sorted.length; at += bodiesPerStatement) {
      const batch = sorted.slice(at, at + bodiesPerStatement);
      const parts = batch.map(([, body]) => Buffer.from(body, "utf8"));
      const starts: number[] = [];
      let offset = 0;
      for (const part of parts) {
        starts.push(offset);
        offset += part.length;
      }
      sent.push(
        yield* tx.send(
          `insert into page_bodies (sha256, body)
         select b.sha256, substring($2::bytea from b.start + 1 for b.length)
           from unnest($1::text[], $3::int[], $4::int[]) with ordinality as b(sha256, start, length, n)
          order by b.n
         on conflict (sha256) do nothing`,
          [batch.map(([sha256]) => sha256), Buffer.concat(parts), starts, parts.map((part) => part.length)],
        ),
      );
    }
    return Effect.all(sent, { discard: true });
  });

/** A run's evidence as its statement's parameters, all but the trace (an acceptance stamps it last). */
export interface EncodedEvidence {
  readonly facts: string;
  readonly failures: string;
  readonly plan: string;
  readonly recipe: string | null;
  readonly artifacts: string;
}

export const encodeEvidence = (evidence: RunEvidence): EncodedEvidence => ({
  facts: JSON.stringify(evidence.facts),
  failures: JSON.stringify(evidence.failures),
  plan: JSON.stringify(evidence.plan ?? null),
  recipe: evidence.recipe ? JSON.stringify(evidence.recipe) : null,
  artifacts: recordset(
    evidence.artifacts.map((a, position) => ({
      position,
      id: a.id,
      kind: a.kind,
      url: a.url,
      content_type: a.contentType,
      sha256: a.sha256,
      size: a.size,
      truncated: a.truncated,
      created_at: a.createdAt,
    })),
  ),
});

/**
 * Replaces a run's evidence whole (memory keeps one RunEvidence per run and overwrites it): one
 * statement for run_evidence and the artifacts (each position written over, positions past the new
 * artifacts deleted, the in-flight trace ended). Their bodies go apart (`sendBodies`). Sent (`Sql.send`).
 */
export const sendEvidence = (tx: Sql, runId: RunId, encoded: EncodedEvidence, trace: RunEvidence["trace"]) =>
  tx
    .send(
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
    )
    .pipe(Effect.map(Effect.asVoid));

/** A run's evidence and its artifacts' bodies, written now. */
export const writeEvidence = (tx: Sql, runId: RunId, evidence: RunEvidence) =>
  Effect.gen(function* () {
    const bodies = yield* sendBodies(tx, evidence.artifacts, []);
    const written = yield* sendEvidence(tx, runId, encodeEvidence(evidence), evidence.trace);
    yield* Effect.all([bodies, written], { discard: true });
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
