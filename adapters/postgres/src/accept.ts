import {
  type AcceptanceFacts,
  type AcceptanceOutcome,
  acceptanceOutcome,
  type LedgerEntry,
  decideAcceptance,
  type RunAcceptance,
  type RunRecord,
  type StorageFailure,
  stampAcceptance,
} from "@gleaner/core";
import * as Clock from "effect/Clock";
import * as Effect from "effect/Effect";
import { type Db, isUuid, type Transaction } from "./db.js";
import { artifactBodies, sendBodies } from "./page-bodies.js";
import { pageReadsToWrite, sendPageReads } from "./page-reads.js";
import { factsByPage, sendPageRecords } from "./page-records.js";
import { type RunRow, runColumns, toRun } from "./records.js";
import {
  lastVersions,
  rowsParameter,
  sendNewRows,
  sendObservations,
  sendRevisions,
  sendRows,
  sendSequenceAllocation,
  sendSighting,
} from "./rows.js";
import { bodyKey, type ContentCache, isWellFormed, observationKey, recordsKey } from "./content-cache.js";
import { type RowsCache, rowsVersion } from "./rows-cache.js";
import { encodeEvidence, sendEvidence, sendRun, writeRun } from "./run-writes.js";
import { writeOutbox } from "./webhooks.js";

/**
 * acceptRun in one transaction: read core's acceptance facts under row locks, let core decide,
 * apply the decision. Locks are taken in one order everywhere (run, then dataset, then rows, then
 * owner) so concurrent accepts and edits queue instead of deadlocking:
 *
 * 1. the run, FOR NO KEY UPDATE: a second delivery of the same run waits here, then sees it
 *    finished and gets AlreadyFinished; nothing is charged or written twice;
 * 2. the dataset row (its revision counter), so no edit slips in between the row check and the write;
 * 3. each row's head revision, locked, for core's RowsChanged check;
 * 4. the owner row, so two runs of one owner cannot both spend the same credits; whether the run
 *    is already charged (the unique charge per run id) and the balance; and the dataset's sighting
 *    (with the counter, the version of its rows before this acceptance: rows-cache.ts);
 * 5. then, as decided: the sequences (allocated first), the evidence's page bodies (those the store
 *    did not serve the run), and the held run and its evidence, or the charge, revisions,
 *    observations, rows (those seen unchanged only as the run's sighting), page records and page
 *    reads, run, evidence and the run's webhook messages (outbox); the run and evidence stamped
 *    (`stampAcceptance`) after the rows are written;
 * 6. once an accepted run committed, the process keeps what it wrote (decision 0035): the dataset's
 *    rows at their new version, and the content its next run's kept reads name.
 */
export const acceptRun = (
  db: Db,
  cache: RowsCache,
  content: ContentCache,
  acceptance: RunAcceptance,
): Effect.Effect<AcceptanceOutcome, StorageFailure> => {
  let rowsBefore: { readonly lastSequence: number; readonly sightingRunId: string | null } | null = null;
  // The content this acceptance stores, kept for re-runs once it is committed (content-cache.ts).
  const stored: Array<readonly [string, string]> = [];
  return db
    .transaction((tx) =>
      Effect.gen(function* () {
        const { facts, lastSequence, sightingRunId } = yield* readFacts(tx, acceptance);
        const decision = decideAcceptance(acceptance, facts);
        if (decision._tag !== "Held" && decision._tag !== "Accepted") return acceptanceOutcome(decision);
        if (lastSequence !== null) rowsBefore = { lastSequence, sightingRunId };
        // An accepted run's sequences are allocated first: its revisions' COPY is encoded with them,
        // and statements run one after the other, so asked behind the bodies the host would wait for
        // the bodies' insert to learn them (~10 ms of a cold first run, decision 0035).
        const allocated =
          decision._tag === "Accepted"
            ? yield* sendSequenceAllocation(tx, acceptance.run.datasetId, acceptance.revisions.length)
            : null;
        // Then the evidence's page bodies, once the locks are held: the server stores them while the
        // host encodes the rest (decision 0034). Those the store served the run (bodiesStored) are not
        // sent again.
        const served = new Set(acceptance.bodiesStored);
        const bodies = artifactBodies(acceptance.evidence.artifacts);
        const bodiesSent = yield* sendBodies(
          tx,
          bodies.filter((b) => !served.has(b.sha256)),
        );
        if (decision._tag === "Held" || allocated === null) {
          const stamped = stampAcceptance(acceptance, yield* Clock.currentTimeMillis);
          yield* writeRun(tx, stamped.heldRun);
          const { trace } = stamped.heldEvidence;
          yield* Effect.flatten(sendEvidence(tx, stamped.heldRun.id, trace, encodeEvidence(stamped.heldEvidence)));
          yield* bodiesSent;
          return { _tag: "Held", run: stamped.heldRun } as const;
        }
        const run = yield* writeAccepted(tx, acceptance, decision.charge, allocated, (key, text) =>
          stored.push([key, text]),
        );
        yield* bodiesSent;
        // Kept: what the next run's kept reads name (a run without page reads keeps nothing). A body
        // reads back as the string it was only when that string is well-formed UTF-16.
        const read = new Set(acceptance.pageReads?.pages.map((p) => p.sha256));
        for (const b of bodies)
          if (read.has(b.sha256) && isWellFormed(b.body)) stored.push([bodyKey(b.sha256), b.body]);
        return { _tag: "Accepted", run } as const;
      }),
    )
    .pipe(
      // Committed: the rows kept for the dataset become the acceptance's (its sequences allocated
      // after the version read, its run the sighting). Held wrote no row.
      Effect.tap((outcome) => {
        if (outcome._tag !== "Accepted") return;
        for (const [key, text] of stored) content.keep(key, text);
        if (rowsBefore === null || !cache.enabled) return;
        const { lastSequence, sightingRunId } = rowsBefore;
        cache.accepted(
          acceptance,
          rowsVersion(lastSequence, sightingRunId),
          rowsVersion(lastSequence + acceptance.revisions.length, acceptance.run.id),
        );
      }),
    );
};

/**
 * Ids as a uuid[] parameter's text: uuids need no quoting, and pg's own array encoding escapes each
 * of a first run's 1000 ids (~4 ms). Anything that is not a canonical uuid goes through pg's encoding.
 */
const uuidArray = (ids: ReadonlyArray<string>): string | ReadonlyArray<string> =>
  ids.every(isUuid) ? `{${ids.join(",")}}` : ids;

const readFacts = (
  tx: Transaction,
  { run, charge, rows }: RunAcceptance,
): Effect.Effect<
  {
    readonly facts: AcceptanceFacts;
    /** The dataset's rows version before the acceptance (null: no such dataset). */
    readonly lastSequence: number | null;
    readonly sightingRunId: string | null;
  },
  StorageFailure
> =>
  Effect.gen(function* () {
    const [stored] = yield* tx.query<RunRow>(`select ${runColumns} from runs where id = $1 for no key update`, [
      run.id,
    ]);
    // The dataset's lock, and its revision counter before this acceptance: a row waited for is read
    // again once it is locked (rows-cache.ts: the rows version).
    const [dataset] = yield* tx.query<{ last_sequence: string }>(
      "select last_sequence::text as last_sequence from datasets where id = $1 for no key update",
      [run.datasetId],
    );
    const heads =
      rows.length === 0
        ? []
        : yield* tx.query<{ id: string; revision_id: string | null }>(
            "select id, revision_id from rows where dataset_id = $1 and id = any($2::uuid[]) for no key update",
            [run.datasetId, uuidArray(rows.map(({ row }) => row.id))],
          );
    // The owner's lock and balance (kept on its row, migration 0014) in one statement, and the
    // dataset's sighting: read by a statement that starts once the dataset is locked, so no other
    // acceptance of it can have changed it since (the other half of the rows version).
    const [charged] = yield* tx.query<{ already: boolean; balance: string; sighting_run_id: string | null }>(
      `select exists (select 1 from ledger_entries where run_id = $1 and kind = 'charge') as already,
              o.balance::text as balance,
              (select run_id from row_sightings where dataset_id = $3) as sighting_run_id
         from owners o where o.id = $2 for no key update of o`,
      [run.id, charge.ownerId, run.datasetId],
    );
    return {
      facts: {
        storedRun: stored ? yield* toRun(stored) : null,
        rowHeads: new Map(heads.map((row) => [row.id, row.revision_id])),
        alreadyCharged: charged?.already ?? false,
        balance: Number(charged?.balance ?? 0),
      },
      lastSequence: dataset === undefined ? null : Number(dataset.last_sequence),
      sightingRunId: charged?.sighting_run_id ?? null,
    };
  });

/**
 * Writes an accepted run; answers the run as stored (stamped once its rows are written). The
 * revisions' COPY streams once their sequences are allocated, the observations' and new rows'
 * behind it, and every other large parameter is encoded while the server works on those
 * (`Transaction.copyFrom`, `Transaction.send`): the host's encoding and the server's work no longer
 * take turns. The statements run in the order sent here, in one transaction.
 */
const writeAccepted = (
  tx: Transaction,
  acceptance: RunAcceptance,
  charge: LedgerEntry | null,
  allocated: Effect.Effect<number, StorageFailure>,
  stored: (key: string, text: string) => void,
): Effect.Effect<RunRecord, StorageFailure> =>
  Effect.gen(function* () {
    const { run } = acceptance;
    const charged = charge
      ? // ON CONFLICT on the per-run unique index: even a path that skipped the run lock charges once.
        yield* tx.send(
          `insert into ledger_entries (id, owner_id, kind, amount, run_id, dataset_id, pages, created_at)
         values ($1, $2, 'charge', $3, $4, $5, $6, $7)
         on conflict (run_id) where kind = 'charge' do nothing`,
          [
            charge.id,
            acceptance.charge.ownerId,
            charge.amount,
            charge.runId,
            charge.datasetId,
            charge.pages,
            charge.createdAt,
          ],
        )
      : Effect.void;
    // The revisions' sequences (allocated before the bodies were sent) let their COPY lines be
    // encoded whole. Each COPY streams as it is encoded (Transaction.copyFrom): the server writes the
    // revisions while the host encodes the rest of them and everything after (decision 0034).
    const first = yield* allocated;
    const [revised, revisions] = yield* sendRevisions(tx, run.datasetId, first, acceptance.revisions);
    const documents = new Map<string, string>();
    const observed = yield* sendObservations(tx, acceptance.observations, (id, text) => documents.set(id, text));
    // Rows seen unchanged are not rewritten: the run's sighting stands for their seen-markers. Rows
    // expected absent (core checked that against the locked heads) are copied in; the others upserted.
    const written = acceptance.rows.filter((r) => !r.seenOnly);
    const added = (entry: (typeof written)[number]) => entry.expectedRevisionId === "absent";
    const rowsAdded = yield* sendNewRows(
      tx,
      run.datasetId,
      lastVersions(written.filter(added).map(({ row }) => row)),
      acceptance.revisions,
      revisions,
    );
    const rowsWritten = yield* sendRows(
      tx,
      run.datasetId,
      rowsParameter(
        written.filter((entry) => !added(entry)).map(({ row }) => row),
        acceptance.revisions,
      ),
    );
    const sighted = yield* sendSighting(tx, acceptance);
    // A page's records go to page_records once; the page read and the run's facts name them.
    const pages = pageReadsToWrite(acceptance);
    const recordsStored = yield* sendPageRecords(tx, pages?.records ?? []);
    for (const { key, json } of pages?.records ?? []) stored(recordsKey(key), json);
    for (const id of pages?.observationIds ?? []) {
      const document = documents.get(id);
      if (document !== undefined) stored(observationKey(id), document);
    }
    const pagesRead = yield* sendPageReads(tx, acceptance, pages);
    // Everything of the evidence but its trace is the same before and after the stamp: encoded
    // while the server works on what was sent.
    const evidence = encodeEvidence(acceptance.evidence, pages && factsByPage(acceptance, pages.keys));
    yield* charged;
    yield* revised;
    yield* observed;
    yield* rowsAdded;
    yield* rowsWritten;
    yield* sighted;
    yield* recordsStored;
    yield* pagesRead;
    const stamped = stampAcceptance(acceptance, yield* Clock.currentTimeMillis);
    const ran = yield* sendRun(tx, stamped.run);
    const evidenced = yield* sendEvidence(tx, run.id, stamped.evidence.trace, evidence);
    yield* ran;
    yield* evidenced;
    // The events carry the run as stored (stamped), like every reader after this transaction.
    yield* writeOutbox(tx, stamped.run, { lastSequenceBefore: first - 1, revisions: acceptance.revisions });
    return stamped.run;
  });
