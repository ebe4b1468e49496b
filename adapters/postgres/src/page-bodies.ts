import type { RunArtifact, StorageFailure } from "@gleaner/core";
import * as Effect from "effect/Effect";
import type { Sql } from "./db.js";

// page_bodies (migration 0008): one body per content digest, shared by every run and dataset that
// read the same bytes. Nothing reads a body but through an artifact citing its digest, and artifacts
// are written only with their run's evidence, so a body may be stored outside the transaction that
// writes the evidence (decision 0024): whatever that transaction's outcome, it exposes nothing.

export interface PageBody {
  readonly sha256: string;
  readonly body: string;
}

/** The bodies a run's artifacts carry, one per digest (truncated artifacts carry none). */
export const artifactBodies = (artifacts: ReadonlyArray<RunArtifact>): ReadonlyArray<PageBody> => [
  ...new Map(
    artifacts.flatMap((a) => (a.body === null ? [] : [[a.sha256, { sha256: a.sha256, body: a.body }] as const])),
  ).values(),
];

/**
 * Stores those of `bodies` that page_bodies lacks, asking first which those are, so the bytes of a
 * body already stored (every body of an unchanged re-run) are not sent again. A body another
 * writer is storing at the same moment reads as missing and is sent: ON CONFLICT then waits for
 * that write and adds nothing. Bodies travel as bytes (a body may hold NUL bytes, which a text
 * parameter cannot carry).
 */
export const storeMissingBodies = (sql: Sql, bodies: ReadonlyArray<PageBody>): Effect.Effect<void, StorageFailure> =>
  Effect.gen(function* () {
    if (bodies.length === 0) return;
    const present = yield* sql.query<{ sha256: string }>(
      "select sha256 from page_bodies where sha256 = any($1::text[])",
      [bodies.map((b) => b.sha256)],
    );
    const stored = new Set(present.map((row) => row.sha256));
    const missing = bodies.filter((b) => !stored.has(b.sha256));
    if (missing.length === 0) return;
    // Batches of 1000 keep a statement far under PostgreSQL's 65,535 parameters.
    for (let at = 0; at < missing.length; at += 1000) yield* insertBodies(sql, missing.slice(at, at + 1000));
  });

/**
 * Stores one body a run has just read (Storage.storePageBodyAhead), while it reads on: without
 * asking first, as a body read for the first time is the common case (a page unchanged since the
 * last accepted read is not handed over at all), and ON CONFLICT adds nothing when it is there.
 */
export const storeBody = (sql: Sql, body: PageBody): Effect.Effect<void, StorageFailure> => insertBodies(sql, [body]);

// Each body a bytea parameter of its own: pg sends a Buffer as binary, so the bytes are neither
// escaped nor parsed as JSON on the way (base64 in jsonb cost ~60 ms for a 50-page run).
const insertBodies = (sql: Sql, bodies: ReadonlyArray<PageBody>) =>
  sql
    .query(
      `insert into page_bodies (sha256, body)
       values ${bodies.map((_, i) => `($${2 * i + 1}, $${2 * i + 2}::bytea)`).join(", ")}
       on conflict (sha256) do nothing`,
      bodies.flatMap((b) => [b.sha256, Buffer.from(b.body, "utf8")]),
    )
    .pipe(Effect.asVoid);
