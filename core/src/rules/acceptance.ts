import type { AcceptanceOutcome, RowRecord, RunAcceptance, RunEvidence, RunRecord } from "../run-domain.js";
import { isoAt } from "../time.js";
import type { LedgerEntryId } from "../schema/ids.js";
import type { LedgerEntry } from "../schema/usage.js";

/**
 * What a store read about one acceptance, under its own lock or inside its own transaction, in
 * its lock order (run, dataset, rows, owner). The store only gathers these facts and applies the
 * decision; the rule lives here once, so memory, PostgreSQL and MongoDB cannot drift apart.
 */
export interface AcceptanceFacts {
  /** The run as stored now; null when it is missing. */
  readonly storedRun: RunRecord | null;
  /** The head revision of each accepted row that is stored, by row id; a missing key means no such row. */
  readonly rowHeads: ReadonlyMap<string, string | null>;
  /** The run already has its charge in the ledger (a redelivery after a crash, or a retry). */
  readonly alreadyCharged: boolean;
  /** The owner's balance; only consulted when the run is not charged yet. */
  readonly balance: number;
  /** The dataset's newest run (queuedAt desc, id desc); read only when accepting a held run. */
  readonly newestRunId?: string | null;
}

/** The store's orders: what to write (and what to answer) for one acceptance. */
export type AcceptanceDecision =
  /** Nothing written: another delivery finished the run. */
  | { readonly _tag: "AlreadyFinished"; readonly run: RunRecord }
  /** Nothing written: a row changed since the engine read it (recompute and try again). */
  | { readonly _tag: "RowsChanged" }
  /** Write only `run` (the held run), its evidence, the held outcome and the held run's webhook messages. */
  | { readonly _tag: "Held"; readonly run: RunRecord }
  /** Nothing written: accepting a held run, the owner still cannot pay. */
  | { readonly _tag: "Unpaid"; readonly balance: number }
  /** Write `charge` when not null, then observations, revisions, rows, `run` and the evidence. */
  | { readonly _tag: "Accepted"; readonly run: RunRecord; readonly charge: LedgerEntry | null };

/** "absent" means no stored row; otherwise the row must be stored with exactly the expected head. */
export const rowHeadsMatch = (heads: ReadonlyMap<string, string | null>, rows: RunAcceptance["rows"]): boolean =>
  rows.every(({ row, expectedRevisionId }) =>
    expectedRevisionId === "absent"
      ? !heads.has(row.id)
      : heads.has(row.id) && heads.get(row.id) === expectedRevisionId,
  );

/**
 * A dataset's rows once an accepted `acceptance` is written on top of `current`: each row it names
 * replaces the one with its id (its last version), and a row it saw unchanged reads with the run's
 * seen-markers, which its record carries (AcceptedRow.seenOnly). Rows it does not name are left as
 * they were (reconcile names every present row a run saw or lost). Every store's loadRows answers
 * this after the acceptance; a store that keeps rows in process carries them with it.
 */
export const rowsAfterAcceptance = (
  current: ReadonlyArray<RowRecord>,
  acceptance: Pick<RunAcceptance, "rows">,
): ReadonlyArray<RowRecord> => {
  const byId = new Map<string, RowRecord>(current.map((row) => [row.id, row]));
  for (const { row } of acceptance.rows) byId.set(row.id, row);
  return [...byId.values()];
};

/**
 * The acceptance protocol: run finished (for a held run's acceptance: still held, and still the
 * dataset's newest run)? -> rows changed since the plan? -> drift -> held; already charged? -> balance
 * short -> held (accepting a held run: unpaid, nothing written); otherwise charge (once per run) and write.
 */
export const decideAcceptance = (acceptance: RunAcceptance, facts: AcceptanceFacts): AcceptanceDecision => {
  const { run, charge } = acceptance;
  const expected = acceptance.acceptingHeld ? "held" : "running";
  if (facts.storedRun?.status !== expected) return { _tag: "AlreadyFinished", run: facts.storedRun ?? run };
  if (acceptance.acceptingHeld && facts.newestRunId !== run.id) return { _tag: "RowsChanged" };
  if (!rowHeadsMatch(facts.rowHeads, acceptance.rows)) return { _tag: "RowsChanged" };
  if (acceptance.holdForDrift) return { _tag: "Held", run: acceptance.heldRun };
  if (facts.alreadyCharged) return { _tag: "Accepted", run, charge: null };
  if (facts.balance < charge.pages) {
    return acceptance.acceptingHeld
      ? { _tag: "Unpaid", balance: facts.balance }
      : { _tag: "Held", run: acceptance.heldRun };
  }
  return {
    _tag: "Accepted",
    run,
    charge: {
      id: charge.entryId as LedgerEntryId,
      kind: "charge",
      amount: -charge.pages,
      runId: run.id,
      datasetId: run.datasetId,
      pages: charge.pages,
      createdAt: run.completedAt ?? run.queuedAt,
    },
  };
};

/** What the store answers once it has applied the decision. */
export const acceptanceOutcome = (decision: AcceptanceDecision): AcceptanceOutcome =>
  decision._tag === "Accepted" ? { _tag: "Accepted", run: decision.run } : decision;

/**
 * The trace as of `completedAt`: its final accept step (the engine's reconciliation and the store's
 * write) lasts until then, and the run's wall time with it. A trace whose last step is not an accept
 * step is left as it is.
 */
const traceUntil = (
  trace: RunEvidence["trace"],
  completedAt: number,
  startedAt: string | null,
): RunEvidence["trace"] => {
  const last = trace.steps.at(-1);
  if (last?.phase !== "accept") return trace;
  const durationMs = Math.max(0, Math.round(completedAt - Date.parse(last.startedAt)));
  const added = durationMs - (last.durationMs ?? 0);
  return {
    ...trace,
    wallMs:
      trace.wallMs === null || startedAt === null ? trace.wallMs : Math.max(0, completedAt - Date.parse(startedAt)),
    steps: [...trace.steps.slice(0, -1), { ...last, durationMs }],
    phases: trace.phases.map((p) =>
      p.phase === "accept" ? { ...p, totalMs: p.totalMs + added, maxMs: Math.max(p.maxMs, durationMs) } : p,
    ),
  };
};

/**
 * An acceptance stamped by the store while it writes it (decision 0042): `completedAt` of the run (and
 * of the held run) is `nowMs`, read from the store's Clock after it wrote the rows and before it writes
 * the run, so the trace's accept step includes the write. One atomic write: no reader ever sees the run
 * finished with another time. A held run accepted later keeps the trace of the run as it was: only
 * its completedAt is the acceptance's.
 */
export const stampAcceptance = (acceptance: RunAcceptance, nowMs: number): RunAcceptance => {
  const completedAt = isoAt(nowMs);
  const { run, heldRun, evidence, heldEvidence } = acceptance;
  if (acceptance.acceptingHeld) return { ...acceptance, run: { ...run, completedAt } };
  return {
    ...acceptance,
    run: { ...run, completedAt },
    heldRun: { ...heldRun, completedAt },
    evidence: { ...evidence, trace: traceUntil(evidence.trace, nowMs, run.startedAt) },
    heldEvidence: { ...heldEvidence, trace: traceUntil(heldEvidence.trace, nowMs, heldRun.startedAt) },
  };
};
