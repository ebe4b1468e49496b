import type { RunArtifact, StorageFailure } from "@gleaner/core";
import * as Effect from "effect/Effect";
import type { Sql } from "./db.js";

// page_bodies (migration 0008): one body per content digest, shared by every run and dataset that
// read the same bytes. Nothing reads a body but through an artifact citing its digest, and an
// artifact is written only with its run's evidence, so a body may be written before the run has
// an outcome (keepPageBody, decision 0024): whatever the outcome, it exposes nothing.

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

/** Stores one body under its digest; one already stored is left as it is. */
export const keepPageBody = (sql: Sql, sha256: string, body: string): Effect.Effect<void, StorageFailure> =>
  sql
    .query("insert into page_bodies (sha256, body) values ($1, $2) on conflict (sha256) do nothing", [
      sha256,
      Buffer.from(body, "utf8"),
    ])
    .pipe(Effect.asVoid);

/**
 * Sends the question which of `bodies` page_bodies lacks; the Effect it answers stores those (most
 * were kept while the run read its pages, and an unchanged re-run's are all there), so the bytes
 * of a body already stored are not sent again. A body whose early write is still in flight reads
 * as missing and is sent: ON CONFLICT then waits for that write and adds nothing.
 */
export const sendMissingBodies = (
  tx: Sql,
  bodies: ReadonlyArray<PageBody>,
): Effect.Effect<Effect.Effect<void, StorageFailure>> =>
  bodies.length === 0
    ? Effect.succeed(Effect.void)
    : Effect.map(
        tx.send<{ sha256: string }>("select sha256 from page_bodies where sha256 = any($1::text[])", [
          bodies.map((b) => b.sha256),
        ]),
        (present) =>
          Effect.gen(function* () {
            const stored = new Set((yield* present).map((row) => row.sha256));
            const missing = bodies.filter((b) => !stored.has(b.sha256));
            if (missing.length === 0) return;
            yield* tx.query(
              `insert into page_bodies (sha256, body)
               select b.sha256, decode(b.body, 'base64') from jsonb_to_recordset($1::jsonb) as b(sha256 text, body text)
               on conflict (sha256) do nothing`,
              [
                JSON.stringify(
                  missing.map((b) => ({ sha256: b.sha256, body: Buffer.from(b.body, "utf8").toString("base64") })),
                ),
              ],
            );
          }),
      );
