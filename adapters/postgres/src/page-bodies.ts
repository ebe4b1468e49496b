import type { RunArtifact, StorageFailure } from "@gleaner/core";
import * as Effect from "effect/Effect";
import { sendContentAddressed, type Transaction } from "./db.js";

// page_bodies (migration 0008): one body per content digest, shared by every run and dataset that
// read the same bytes. Nothing reads a body but through an artifact citing its digest, and a body
// is stored in the transaction that writes its run's evidence (decision 0034).

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
 * body already stored are not sent again (a failed run's evidence: the pages it read are often the
 * ones the dataset's accepted run stored).
 */
export const storeMissingBodies = (tx: Transaction, bodies: ReadonlyArray<PageBody>) =>
  Effect.gen(function* () {
    if (bodies.length === 0) return;
    const present = yield* tx.query<{ sha256: string }>(
      "select sha256 from page_bodies where sha256 = any($1::text[])",
      [bodies.map((b) => b.sha256)],
    );
    const stored = new Set(present.map((row) => row.sha256));
    yield* Effect.flatten(
      sendBodies(
        tx,
        bodies.filter((b) => !stored.has(b.sha256)),
      ),
    );
  });

/**
 * Stores `bodies` without asking first which are stored (ON CONFLICT adds nothing for those): an
 * acceptance sends this once its locks are held, and the server stores them while the host encodes
 * the rest (decision 0034). Sent (`Transaction.send`); answers the Effect awaiting the server.
 *
 * In digest order (`sendContentAddressed`: no cycle of waits between acceptances storing the same
 * bodies), as bytes: a body may hold NUL bytes.
 */
export const sendBodies = (
  tx: Transaction,
  bodies: ReadonlyArray<PageBody>,
): Effect.Effect<Effect.Effect<void, StorageFailure>> =>
  sendContentAddressed(
    tx,
    { table: "page_bodies", key: "sha256", value: "body", valueType: "bytea" },
    bodies,
    (b) => b.sha256,
    (b) => b.body,
  );
