import {
  type AcceptanceFacts,
  type AcceptanceOutcome,
  acceptanceOutcome,
  type LedgerEntry,
  decideAcceptance,
  type RunAcceptance,
  type RowRecord,
  type RunRecord,
  StorageFailure,
  stampAcceptance,
} from "@gleaner/core";
import * as Clock from "effect/Clock";
import * as Effect from "effect/Effect";
import { isDeepStrictEqual } from "node:util";
import { type Db, type Transaction, uuidArray } from "./db.js";
import { sendHeldOutcome, sendHeldOutcomeDropped } from "./held-outcomes.js";
import { artifactBodies, sendBodies } from "./page-bodies.js";
import { keptAsDecoded, pageReadsToWrite, sendPageReads } from "./page-reads.js";
import { factsByPage, sendPageRecords } from "./page-records.js";
import { type RunRow, runColumns, toRun } from "./records.js";
import {
  lastVersions,
  revisionsFromRows,
  rowsParameter,
  sendNewRows,
  sendObservations,
  sendRevisions,
  sendRevisionsFromRows,
  sendRows,
  sendSequenceAllocation,
  sendSighting,
} from "./rows.js";
import { bodyKey, type ContentCache, isWellFormed, observationKey, recordsKey, valueSize } from "./content-cache.js";
import { type RowsCache, rowsVersion } from "./rows-cache.js";
import { encodeEvidence, sendEvidence, sendRun, writeRun } from "./run-writes.js";
import { writeOutbox } from "./webhooks.js";

/**
 * acceptRun in one transaction: read core's acceptance facts under locks, let core decide, apply
 * the decision. Locks are taken in one order everywhere (run, then dataset, then owner, then rows)
 * so concurrent accepts and edits queue instead of deadlocking:
 *
 * 1. the run, FOR NO KEY UPDATE: a second delivery of the same run waits here, then sees it
 *    finished and gets AlreadyFinished; nothing is charged or written twice;
 * 2. the dataset row (its revision counter): every write to the dataset's rows (an acceptance, an
 *    edit) takes it first, so none slips in between the row check and the write;
 * 3. the owner row, so two runs of one owner cannot both spend the same credits: whether the run
 *    is already charged (the unique charge per run id) and the balance; and the dataset's sighting
 *    (with the counter, the version of its rows before this acceptance: rows-cache.ts). These three
 *    statements go together, in that order;
 * 4. each row's head revision for core's RowsChanged check: the kept rows' when they are that
 *    version (decision 0036), else read and locked;
 * 5. then, as decided: the sequences (allocated first), the evidence's page bodies (those the store
 *    did not serve the run), and the held run, its evidence, its outcome (held_outcomes) and webhook
 *    messages, or (dropping the dataset's held outcome when a held run is accepted) the charge, observations, rows
 *    (those seen unchanged only as the run's sighting) and revisions (written from their new rows
 *    when they only create them, decision 0036; else copied in before), page records and page
 *    reads, run, evidence and the run's webhook messages (outbox); the run and evidence stamped
 *    (`stampAcceptance`) after the rows are written;
 * 6. once an accepted run committed, the process keeps what it wrote (decision 0035): the dataset's
 *    rows at their new version, and the content its next run's kept reads name (the values it
 *    wrote, not their text to parse again).
 */
export const acceptRun = (
  db: Db,
  cache: RowsCache,
  content: ContentCache,
  acceptance: RunAcceptance,
): Effect.Effect<AcceptanceOutcome, StorageFailure> => {
  let rowsBefore: { readonly lastSequence: number; readonly sightingRunId: string | null } | null = null;
  // The content this acceptance stores, kept for re-runs once it is committed (content-cache.ts):
  // bodies as their text, JSON documents as the values it wrote, with their size.
  const keptTexts: Array<readonly [string, string]> = [];
  const keptValues: Array<readonly [string, unknown, number]> = [];
  return db
    .transaction((tx) =>
      Effect.gen(function* () {
        const { facts, lastSequence, sightingRunId } = yield* readFacts(tx, cache, acceptance);
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
          const held = acceptance.heldOutcome();
          yield* writeRun(tx, stamped.heldRun);
          const { trace } = stamped.heldEvidence;
          yield* Effect.flatten(sendEvidence(tx, stamped.heldRun.id, trace, encodeEvidence(stamped.heldEvidence)));
          yield* Effect.flatten(sendHeldOutcome(tx, held));
          yield* writeOutbox(tx, stamped.heldRun, null, held.reason);
          yield* bodiesSent;
          return { _tag: "Held", run: stamped.heldRun } as const;
        }
        if (acceptance.acceptingHeld) yield* Effect.flatten(sendHeldOutcomeDropped(tx, acceptance.run.datasetId));
        const run = yield* writeAccepted(tx, acceptance, decision.charge, allocated, (key, value, size) =>
          keptValues.push([key, value, size]),
        );
        yield* bodiesSent;
        // Kept: what the next run's kept reads name (a run without page reads keeps nothing). A body
        // reads back as the string it was only when that string is well-formed UTF-16.
        const read = new Set(acceptance.pageReads?.pages.map((p) => p.sha256));
        for (const b of bodies)
          if (read.has(b.sha256) && isWellFormed(b.body)) keptTexts.push([bodyKey(b.sha256), b.body]);
        return { _tag: "Accepted", run } as const;
      }),
    )
    .pipe(
      // Committed: the rows kept for the dataset become the acceptance's (its sequences allocated
      // after the version read, its run the sighting). Held wrote no row.
      Effect.tap((outcome) => {
        if (outcome._tag !== "Accepted") return;
        for (const [key, text] of keptTexts) content.keepText(key, text);
        for (const [key, value, size] of keptValues) content.keepValue(key, value, size);
        for (const page of acceptance.pageReads?.pages ?? []) {
          if (page.reused) continue;
          keptAsDecoded(page.extraction.records);
          keptAsDecoded(page.extraction.entries);
        }
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

const readFacts = (
  tx: Transaction,
  cache: RowsCache,
  { run, charge, rows, acceptingHeld }: RunAcceptance,
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
    // Three statements sent together: the server runs them in order, so the locks are taken in
    // order (run, dataset, owner) and the host waits one round trip, not three (decision 0036).
    const runSent = yield* tx.send<RunRow>(`select ${runColumns} from runs where id = $1 for no key update`, [run.id]);
    // The dataset's lock, and its revision counter before this acceptance (rows-cache.ts: the rows version).
    const datasetSent = yield* tx.send<{ last_sequence: string }>(
      "select last_sequence::text as last_sequence from datasets where id = $1 for no key update",
      [run.datasetId],
    );
    // The owner's lock and balance (kept on its row, migration 0014) in one statement, and the
    // dataset's sighting: read by a statement that starts once the dataset is locked, so no other
    // acceptance of it can have changed it since (the other half of the rows version).
    const ownerSent = yield* tx.send<{ already: boolean; balance: string; sighting_run_id: string | null }>(
      `select exists (select 1 from ledger_entries where run_id = $1 and kind = 'charge') as already,
              o.balance::text as balance,
              (select run_id from row_sightings where dataset_id = $3) as sighting_run_id
         from owners o where o.id = $2 for no key update of o`,
      [run.id, charge.ownerId, run.datasetId],
    );
    // Accepting a held run: the dataset's newest run, read under the dataset's lock (a run queued
    // after the held one makes its outcome stale).
    const newestSent = acceptingHeld
      ? yield* tx.send<{ id: string }>(
          "select id from runs where dataset_id = $1 order by queued_at desc, id desc limit 1",
          [run.datasetId],
        )
      : null;
    const [stored] = yield* runSent;
    const [dataset] = yield* datasetSent;
    const [charged] = yield* ownerSent;
    const newest = newestSent === null ? undefined : ((yield* newestSent)[0]?.id ?? null);
    const sightingRunId = charged?.sighting_run_id ?? null;
    const version = dataset === undefined ? null : rowsVersion(dataset.last_sequence, sightingRunId);
    return {
      facts: {
        storedRun: stored ? yield* toRun(stored) : null,
        rowHeads: yield* rowHeads(
          tx,
          cache,
          run.datasetId,
          version,
          rows.map(({ row }) => row.id),
        ),
        alreadyCharged: charged?.already ?? false,
        balance: Number(charged?.balance ?? 0),
        ...(newest === undefined ? {} : { newestRunId: newest }),
      },
      lastSequence: dataset === undefined ? null : Number(dataset.last_sequence),
      sightingRunId,
    };
  });

/** Each of `ids` that is a kept row's, with its head revision. */
const keptHeads = (kept: ReadonlyArray<RowRecord>, ids: ReadonlyArray<string>) => {
  const heads = new Map(kept.map((row) => [row.id as string, row.revisionId]));
  return new Map(ids.flatMap((id) => (heads.has(id) ? [[id, heads.get(id)!] as const] : [])));
};

/**
 * The head revisions of those of `ids` the dataset has, for core's RowsChanged check. While the
 * rows this process keeps are the `version` read under the dataset's lock, they are the heads: every
 * write to a dataset's rows takes that lock first and changes the version, so none can happen until
 * this transaction ends (decision 0036). Otherwise they are read, each row locked. With `verify`
 * (tests), they are read anyway and a difference from the kept ones fails the acceptance.
 */
const rowHeads = (
  tx: Transaction,
  cache: RowsCache,
  datasetId: string,
  version: string | null,
  ids: ReadonlyArray<string>,
): Effect.Effect<ReadonlyMap<string, string | null>, StorageFailure> =>
  Effect.gen(function* () {
    if (ids.length === 0) return new Map();
    const kept = version === null ? undefined : cache.get(datasetId);
    const fromKept = kept?.version === version ? keptHeads(kept!.rows, ids) : null;
    if (fromKept !== null && !cache.verify) return fromKept;
    const read = yield* tx.query<{ id: string; revision_id: string | null }>(
      "select id, revision_id from rows where dataset_id = $1 and id = any($2::uuid[]) for no key update",
      [datasetId, uuidArray(ids)],
    );
    const heads = new Map(read.map((row) => [row.id, row.revision_id]));
    if (fromKept !== null && !isDeepStrictEqual(new Map([...fromKept].sort()), new Map([...heads].sort()))) {
      return yield* Effect.fail(
        new StorageFailure({
          message: `PostgreSQL: the heads of the rows kept for dataset ${datasetId} at ${version} differ from the stored ones.`,
        }),
      );
    }
    return heads;
  });

/**
 * Writes an accepted run; answers the run as stored (stamped once its rows are written). The
 * revisions' COPY (or, for revisions that only create their rows, their insert from those rows after
 * them) streams once their sequences are allocated, the observations' and new rows' beside it, and
 * every other large parameter is encoded while the server works on those (`Transaction.copyFrom`,
 * `Transaction.send`): the host's encoding and the server's work no longer take turns. The
 * statements run in the order sent here, in one transaction. `keep` hears what the process may keep
 * once it committed (content-cache.ts).
 */
const writeAccepted = (
  tx: Transaction,
  acceptance: RunAcceptance,
  charge: LedgerEntry | null,
  allocated: Effect.Effect<number, StorageFailure>,
  keep: (key: string, value: unknown, size: number) => void,
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
    // Rows seen unchanged are not rewritten: the run's sighting stands for their seen-markers. Rows
    // expected absent (core checked that against the heads) are copied in; the others upserted.
    const written = acceptance.rows.filter((r) => !r.seenOnly);
    const added = (entry: (typeof written)[number]) => entry.expectedRevisionId === "absent";
    const newRows = lastVersions(written.filter(added).map(({ row }) => row));
    // Revisions that only create rows carrying their state are written by the server from those
    // rows, after them (decision 0036); any other acceptance copies its revisions in, and its new
    // rows take their revisions' state bytes.
    const fromRows = revisionsFromRows(acceptance.revisions, newRows);
    const [revisedByCopy, revisions] = fromRows
      ? [Effect.void, null]
      : yield* sendRevisions(tx, run.datasetId, first, acceptance.revisions);
    const documentSizes = new Map<string, number>();
    const observed = yield* sendObservations(tx, acceptance.observations, (id, text) =>
      documentSizes.set(id, valueSize(text)),
    );
    const rowsAdded = yield* sendNewRows(tx, run.datasetId, newRows, acceptance.revisions, revisions);
    const revisedFromRows = fromRows ? yield* sendRevisionsFromRows(tx, run.datasetId, first, fromRows) : Effect.void;
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
    // Kept as the objects they encode: the next run reads them without parsing their JSON, nor
    // checking them (core's own, never read back: page-reads.ts keptAsDecoded).
    for (const { key, json, value } of pages?.records ?? []) keep(recordsKey(key), value, valueSize(json));
    const observationsById = new Map(acceptance.observations.map((o) => [o.id as string, o]));
    for (const id of pages?.observationIds ?? []) {
      const size = documentSizes.get(id);
      if (size !== undefined) keep(observationKey(id), observationsById.get(id), size);
    }
    const pagesRead = yield* sendPageReads(tx, acceptance, pages);
    // Everything of the evidence but its trace is the same before and after the stamp: encoded
    // while the server works on what was sent.
    const evidence = encodeEvidence(acceptance.evidence, pages && factsByPage(acceptance, pages.keys));
    yield* charged;
    yield* revisedByCopy;
    yield* observed;
    yield* rowsAdded;
    yield* revisedFromRows;
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
