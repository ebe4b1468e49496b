import type {
  ApiKeyRecord,
  DatasetRecord,
  HeldOutcome,
  LedgerEntry,
  OutboxMessage,
  PageReadToKeep,
  Owner,
  RowRecord,
  RunEvidence,
  RunRecord,
  SourceObservation,
  StoredRevision,
  WebhookAttempt,
  WebhookRecord,
} from "@gleaner/core";

/**
 * Everything the memory adapters keep, in one object shared by Storage and Credits so that one
 * synchronous block can change both: JavaScript runs it to completion, which makes each port
 * method atomic without locks.
 */
export class MemoryState {
  readonly owners = new Map<string, Owner>();
  readonly ownerIdsByName = new Map<string, string>();
  readonly apiKeys = new Map<string, ApiKeyRecord>();
  readonly datasets = new Map<string, DatasetRecord>();
  /** Appended through `addLedgerEntry` only, which keeps `balances` equal to each owner's sum. */
  readonly ledger: Array<LedgerEntry & { readonly ownerId: string }> = [];
  /** ownerId -> the sum of its ledger, so every answer's balance header sums nothing. */
  readonly balances = new Map<string, number>();
  /** Written through `putRun` only, which keeps `newestRunIds` right. */
  readonly runs = new Map<string, RunRecord>();
  /** datasetId -> id of its newest run (queuedAt desc, id desc), so reading it sorts nothing. */
  readonly newestRunIds = new Map<string, string>();
  readonly evidence = new Map<string, RunEvidence>();
  /** datasetId -> what its newest held run would write (one per dataset, decision 0040). */
  readonly heldOutcomes = new Map<string, HeldOutcome>();
  /** Traces of runs in flight; dropped when the run finishes (its final trace is in `evidence`). */
  readonly traceProgress = new Map<string, RunEvidence["trace"]>();
  /** datasetId -> rowId -> row */
  readonly rows = new Map<string, Map<string, RowRecord>>();
  /** datasetId -> revisions in sequence order (sequence = index + 1) */
  readonly revisions = new Map<string, StoredRevision[]>();
  readonly observations = new Map<string, SourceObservation>();
  /** datasetId -> rows sorted newest first (updatedAt desc, id desc); dropped on every row write. */
  readonly rowOrder = new Map<string, RowRecord[]>();
  readonly webhooks = new Map<string, WebhookRecord>();
  /** The webhook outbox, by message id; a Map keeps insertion order, which is delivery order. */
  readonly webhookMessages = new Map<string, OutboxMessage>();
  readonly webhookAttempts: WebhookAttempt[] = [];

  /**
   * Drops the attempts `doomed` selects, compacting the array in place (a spread of a long attempts
   * list into splice's arguments would overflow the call stack).
   */
  dropWebhookAttempts(doomed: (attempt: WebhookAttempt) => boolean): void {
    let kept = 0;
    for (const attempt of this.webhookAttempts) if (!doomed(attempt)) this.webhookAttempts[kept++] = attempt;
    this.webhookAttempts.length = kept;
  }
  /**
   * datasetId -> the page reads of its newest accepted run, by the URL asked for (decision 0042):
   * one run's pages per dataset, replaced whole by the next acceptance. The bodies are the strings
   * the run's artifacts hold, so they cost nothing more until retention drops those artifacts.
   */
  readonly pageReads = new Map<
    string,
    { readonly runId: string; readonly recipe: string; readonly pages: ReadonlyMap<string, PageReadToKeep> }
  >();

  /**
   * Removes a dataset with everything kept for it (Storage.deleteDataset): rows, revisions,
   * observations, runs and their evidence, page reads, the held outcome, its webhooks and the outbox
   * messages and attempts about it. The ledger keeps its entries.
   */
  deleteDataset(id: string): void {
    this.datasets.delete(id);
    this.rows.delete(id);
    this.rowOrder.delete(id);
    this.revisions.delete(id);
    this.pageReads.delete(id);
    this.heldOutcomes.delete(id);
    this.newestRunIds.delete(id);
    const runIds = new Set<string>();
    for (const [runId, run] of this.runs) {
      if (run.datasetId !== id) continue;
      runIds.add(runId);
      this.runs.delete(runId);
      this.evidence.delete(runId);
      this.traceProgress.delete(runId);
    }
    for (const [observationId, observation] of this.observations)
      if (observation.datasetId === id || runIds.has(observation.runId ?? "")) this.observations.delete(observationId);
    for (const [webhookId, webhook] of this.webhooks) if (webhook.datasetId === id) this.webhooks.delete(webhookId);
    const dropped = new Set<string>();
    for (const [messageId, message] of this.webhookMessages) {
      if (message.datasetId !== id && this.webhooks.has(message.webhookId)) continue;
      this.webhookMessages.delete(messageId);
      dropped.add(messageId);
    }
    this.dropWebhookAttempts((a) => dropped.has(a.messageId) || !this.webhooks.has(a.webhookId));
  }

  /** Adds a finished run's outbox messages (core decides which); one already there is kept as is. */
  putWebhookMessages(messages: ReadonlyArray<OutboxMessage>): void {
    for (const message of messages)
      if (!this.webhookMessages.has(message.id)) this.webhookMessages.set(message.id, message);
  }

  webhooksOf(ownerId: string): WebhookRecord[] {
    return [...this.webhooks.values()].filter((w) => w.ownerId === ownerId);
  }

  /** Stores a run (new, or a new state of one) and keeps its dataset's newest run at hand. */
  putRun(run: RunRecord): void {
    this.runs.set(run.id, run);
    const newest = this.newestRun(run.datasetId);
    if (newest === null || newestRunFirst(run, newest) <= 0) this.newestRunIds.set(run.datasetId, run.id);
  }

  /** The dataset's newest run (queuedAt desc, id desc), whatever its status. */
  newestRun(datasetId: string): RunRecord | null {
    const id = this.newestRunIds.get(datasetId);
    return (id !== undefined && this.runs.get(id)) || null;
  }

  rowsOf(datasetId: string): Map<string, RowRecord> {
    const rows = this.rows.get(datasetId) ?? new Map<string, RowRecord>();
    this.rows.set(datasetId, rows);
    return rows;
  }

  /** Stores a row and drops the dataset's cached order, so the next listing sorts once again. */
  putRow(row: RowRecord): void {
    this.rowsOf(row.datasetId).set(row.id, row);
    this.rowOrder.delete(row.datasetId);
  }

  /** The dataset's rows newest first, sorted once per batch of writes rather than per page. */
  orderedRows(datasetId: string): RowRecord[] {
    let ordered = this.rowOrder.get(datasetId);
    if (!ordered) {
      ordered = [...this.rowsOf(datasetId).values()].sort(newestRowFirst);
      this.rowOrder.set(datasetId, ordered);
    }
    return ordered;
  }

  revisionsOf(datasetId: string): StoredRevision[] {
    const revisions = this.revisions.get(datasetId) ?? [];
    this.revisions.set(datasetId, revisions);
    return revisions;
  }

  addLedgerEntry(entry: LedgerEntry & { readonly ownerId: string }): void {
    this.ledger.push(entry);
    this.balances.set(entry.ownerId, this.balanceOf(entry.ownerId) + entry.amount);
  }

  balanceOf(ownerId: string): number {
    return this.balances.get(ownerId) ?? 0;
  }
}

/** Runs newest first: queuedAt desc, id desc (the dataset's newest run is the first). */
export const newestRunFirst = (a: RunRecord, b: RunRecord): number =>
  a.queuedAt === b.queuedAt ? (a.id < b.id ? 1 : -1) : a.queuedAt < b.queuedAt ? 1 : -1;

export const newestRowFirst = (a: RowRecord, b: RowRecord): number =>
  a.updatedAt === b.updatedAt ? (a.id < b.id ? 1 : a.id > b.id ? -1 : 0) : a.updatedAt < b.updatedAt ? 1 : -1;
