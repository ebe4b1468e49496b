import type { AcceptanceOutcome, RunAcceptance, RunRecord } from "../run-domain.js";
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
}

/** The store's orders: what to write (and what to answer) for one acceptance. */
export type AcceptanceDecision =
  /** Nothing written: another delivery finished the run. */
  | { readonly _tag: "AlreadyFinished"; readonly run: RunRecord }
  /** Nothing written: a row changed since the engine read it (recompute and try again). */
  | { readonly _tag: "RowsChanged" }
  /** Write only `run` (the held run) and the evidence. */
  | { readonly _tag: "Held"; readonly run: RunRecord }
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
 * The acceptance protocol: run finished? -> rows changed since the plan? -> already charged? ->
 * balance short -> held; otherwise charge (once per run) and write.
 */
export const decideAcceptance = (acceptance: RunAcceptance, facts: AcceptanceFacts): AcceptanceDecision => {
  const { run, charge } = acceptance;
  if (facts.storedRun?.status !== "running") return { _tag: "AlreadyFinished", run: facts.storedRun ?? run };
  if (!rowHeadsMatch(facts.rowHeads, acceptance.rows)) return { _tag: "RowsChanged" };
  if (facts.alreadyCharged) return { _tag: "Accepted", run, charge: null };
  if (facts.balance < charge.pages) return { _tag: "Held", run: acceptance.heldRun };
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
