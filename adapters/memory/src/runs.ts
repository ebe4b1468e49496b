import {
  type AcceptanceOutcome,
  acceptanceOutcome,
  conflicts,
  decideAcceptance,
  outboxMessagesForRun,
  type RunAcceptance,
  type RunEvidence,
  type RunRecord,
  type RunStorage,
  stampAcceptance,
} from "@gleaner/core";
import * as Clock from "effect/Clock";
import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import { pruneEvidence, pruneRunRecords } from "./retention.js";
import { type MemoryState, newestRunFirst } from "./state.js";

/** A finished run's evidence; its in-flight trace has served its purpose (the final one is kept here). */
const keepEvidence = (state: MemoryState, run: RunRecord, evidence: RunEvidence): void => {
  state.evidence.set(run.id, evidence);
  state.traceProgress.delete(run.id);
  pruneEvidence(state, run.datasetId);
};

/** Gathers the facts core's acceptance rule needs and applies its decision, in one synchronous block. */
const accept = (state: MemoryState, acceptance: RunAcceptance): AcceptanceOutcome => {
  const { run } = acceptance;
  const rows = state.rowsOf(run.datasetId);
  const rowHeads = new Map<string, string | null>();
  for (const { row } of acceptance.rows) {
    const stored = rows.get(row.id);
    if (stored) rowHeads.set(row.id, stored.revisionId);
  }
  const decision = decideAcceptance(acceptance, {
    storedRun: state.runs.get(run.id) ?? null,
    rowHeads,
    alreadyCharged: state.ledger.some((e) => e.kind === "charge" && e.runId === run.id),
    balance: state.balanceOf(acceptance.charge.ownerId),
    ...(acceptance.acceptingHeld ? { newestRunId: state.newestRun(run.datasetId)?.id ?? null } : {}),
  });
  if (decision._tag === "Held") {
    const held = acceptance.heldOutcome();
    state.putRun(decision.run);
    keepEvidence(state, decision.run, acceptance.heldEvidence);
    state.heldOutcomes.set(run.datasetId, held);
    state.putWebhookMessages(outboxMessagesForRun(decision.run, state.webhooksOf(run.ownerId), null, held.reason));
  }
  if (decision._tag === "Accepted") {
    if (acceptance.acceptingHeld) state.heldOutcomes.delete(run.datasetId);
    if (decision.charge) state.addLedgerEntry({ ...decision.charge, ownerId: acceptance.charge.ownerId });
    for (const observation of acceptance.observations) state.observations.set(observation.id, observation);
    const revisions = state.revisionsOf(run.datasetId);
    const changes = { lastSequenceBefore: revisions.length, revisions: acceptance.revisions };
    for (const revision of acceptance.revisions) revisions.push({ ...revision, sequence: revisions.length + 1 });
    state.putWebhookMessages(outboxMessagesForRun(run, state.webhooksOf(run.ownerId), changes));
    for (const { row } of acceptance.rows) state.putRow(row);
    if (acceptance.pageReads) {
      const { recipe, pages } = acceptance.pageReads;
      state.pageReads.set(run.datasetId, { runId: run.id, recipe, pages: new Map(pages.map((p) => [p.url, p])) });
    }
    state.putRun(run);
    keepEvidence(state, run, acceptance.evidence);
  }
  return acceptanceOutcome(decision);
};

export const makeMemoryRuns = (state: MemoryState): RunStorage => ({
  insertRun: (run) =>
    Effect.suspend(() => {
      const busy = [...state.runs.values()].some(
        (r) => r.datasetId === run.datasetId && (r.status === "queued" || r.status === "running"),
      );
      if (busy) {
        return Effect.fail(conflicts.runInProgress());
      }
      state.putRun(run);
      return Effect.void;
    }),
  getRun: (ownerId, runId) =>
    Effect.sync(() => {
      const run = state.runs.get(runId);
      return run && run.ownerId === ownerId ? Option.some(run) : Option.none();
    }),
  listRuns: (datasetId, limit) =>
    Effect.sync(() =>
      [...state.runs.values()]
        .filter((r) => r.datasetId === datasetId)
        .sort(newestRunFirst)
        .slice(0, limit),
    ),
  claimRun: (runId, startedAt, reclaimRunning) =>
    Effect.sync(() => {
      const run = state.runs.get(runId);
      if (!run) return Option.none();
      if (run.status !== "queued" && !(run.status === "running" && reclaimRunning)) return Option.none();
      const claimed: RunRecord = { ...run, status: "running", startedAt, attempts: run.attempts + 1 };
      state.putRun(claimed);
      const dataset = state.datasets.get(run.datasetId);
      return Option.some({
        run: claimed,
        dataset: Effect.succeed(dataset?.ownerId === run.ownerId ? Option.some(dataset) : Option.none()),
      });
    }),
  finishRun: (run, evidence) =>
    Effect.sync(() => {
      const current = state.runs.get(run.id);
      if (current?.status !== "running") return current ?? run;
      state.putRun(run);
      keepEvidence(state, run, evidence);
      state.putWebhookMessages(outboxMessagesForRun(run, state.webhooksOf(run.ownerId), null));
      return run;
    }),
  // The write is one synchronous block: stamped as it starts, it is written at that instant.
  acceptRun: (acceptance) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) =>
      Effect.sync(() => accept(state, stampAcceptance(acceptance, now))),
    ),
  ownerActivity: (ownerId, since) =>
    Effect.sync(() => {
      const runs = [...state.runs.values()].filter((r) => r.ownerId === ownerId);
      const recent = runs.filter((r) => r.queuedAt >= since).map((r) => r.queuedAt);
      return {
        datasets: [...state.datasets.values()].filter((d) => d.ownerId === ownerId).length,
        activeRuns: runs.filter((r) => r.status === "queued" || r.status === "running").length,
        runsSince: recent.length,
        // ISO timestamps sort as text: the first is the oldest.
        oldestRunSince: [...recent].sort()[0] ?? null,
      };
    }),

  queuedRuns: () =>
    Effect.sync(() => {
      const queued = [...state.runs.values()].filter((r) => r.status === "queued").map((r) => r.queuedAt);
      // ISO timestamps sort as text: the first is the oldest.
      return { count: queued.length, oldestQueuedAt: queued.sort()[0] ?? null };
    }),
  pruneRunRecords: (finishedBefore, limit) => Effect.sync(() => pruneRunRecords(state, finishedBefore, limit)),
  getRunEvidence: (runId) => Effect.sync(() => Option.fromNullable(state.evidence.get(runId))),
  getRunTrace: (runId) => Effect.sync(() => Option.fromNullable(state.evidence.get(runId)?.trace)),
  listRunArtifacts: (runId) =>
    Effect.sync(() => {
      const evidence = state.evidence.get(runId);
      if (!evidence) return Option.none();
      return Option.some({
        recipe: evidence.recipe ?? null,
        artifacts: evidence.artifacts.map(({ body: _body, ...entry }) => entry),
      });
    }),
  saveTraceProgress: (runId, trace) =>
    Effect.sync(() => {
      if (state.runs.get(runId)?.status === "running") state.traceProgress.set(runId, trace);
    }),
  getTraceProgress: (runId) =>
    Effect.sync(() => {
      if (state.runs.get(runId)?.status !== "running") return Option.none();
      return Option.fromNullable(state.traceProgress.get(runId));
    }),
  heldOutcome: (datasetId) => Effect.sync(() => Option.fromNullable(state.heldOutcomes.get(datasetId))),
  acceptedReads: (datasetId) =>
    Effect.sync(() => {
      const kept = state.pageReads.get(datasetId);
      return kept
        ? [...kept.pages.values()].map(({ reused: _reused, ...read }) => ({
            ...read,
            runId: kept.runId,
            recipe: kept.recipe,
          }))
        : [];
    }),
  // Each artifact keeps its own body here: the run's evidence brings every body it cites.
  getArtifact: (runId, artifactId) =>
    Effect.sync(() => Option.fromNullable(state.evidence.get(runId)?.artifacts.find((a) => a.id === artifactId))),
});
