import type { RunArtifact, StorageFailure } from "@gleaner/core";
import * as Effect from "effect/Effect";
import { distinctInKeyOrder, type Transaction } from "./db.js";

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
 * The bodies of a statement: each body's UTF-8 written once into one buffer, at the offsets given
 * (one allocation; pg would copy fifty parameters into a buffer it grows as it goes: ~2× the
 * host's time for a 50-page run's 2 MB, decision 0036).
 */
export const bodiesBlob = (bodies: ReadonlyArray<PageBody>) => {
  const lengths = bodies.map((b) => Buffer.byteLength(b.body, "utf8"));
  const blob = Buffer.allocUnsafe(lengths.reduce((sum, length) => sum + length, 0));
  const offsets: number[] = [];
  let at = 0;
  for (const [i, b] of bodies.entries()) {
    offsets.push(at);
    at += blob.write(b.body, at, lengths[i]!, "utf8");
  }
  return { blob, offsets, lengths };
};

/** Bodies per statement: a few tens of MB at SPEC's 64 KiB per body at most. */
const bodiesPerStatement = 500;

/**
 * Stores `bodies` without asking first which are stored (ON CONFLICT adds nothing for those): an
 * acceptance sends this once its locks are held, and the server stores them while the host encodes
 * the rest (decision 0034). Sent (`Transaction.send`); answers the Effect awaiting the server.
 *
 * Each digest once, in digest order (`distinctInKeyOrder`: no cycle of waits between acceptances
 * storing the same bodies). Bodies travel as bytes (a body may hold NUL bytes, which a text
 * parameter cannot carry): all of a statement's in one bytea parameter, which the server cuts at the
 * offsets sent beside it (`bodiesBlob`); pg sends a Buffer as binary, neither escaped nor parsed.
 */
export const sendBodies = (
  tx: Transaction,
  bodies: ReadonlyArray<PageBody>,
): Effect.Effect<Effect.Effect<void, StorageFailure>> =>
  Effect.gen(function* () {
    const sorted = distinctInKeyOrder(bodies, (b) => b.sha256);
    const sent: Array<Effect.Effect<unknown, StorageFailure>> = [];
    for (let at = 0; at < sorted.length; at += bodiesPerStatement) {
      const batch = sorted.slice(at, at + bodiesPerStatement);
      const { blob, offsets, lengths } = bodiesBlob(batch);
      sent.push(
        yield* tx.send(
          `insert into page_bodies (sha256, body)
           select b.sha256, substring($2::bytea from b.offset_in_blob + 1 for b.length)
             from unnest($1::text[], $3::int[], $4::int[]) with ordinality as b(sha256, offset_in_blob, length, n)
            order by b.n
           on conflict (sha256) do nothing`,
          [batch.map((b) => b.sha256), blob, offsets, lengths],
        ),
      );
    }
    return Effect.asVoid(Effect.all(sent));
  });
