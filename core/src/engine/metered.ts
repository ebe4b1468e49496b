import * as Effect from "effect/Effect";
import type { FetcherService } from "../ports/fetcher.js";
import { Metrics, type MetricsService } from "../ports/metrics.js";
import type { StorageService } from "../ports/storage.js";
import type { WebhookSenderService } from "../ports/webhook-sender.js";
import type { RunEvidence, RunRecord } from "../run-domain.js";
import type { RunKind } from "../schema/research.js";

/**
 * Metrics told at the ports, so every path a run takes (either engine, a held run accepted later, a
 * run its deadline stopped) is counted once, where it is written: a run ends in the store, a page is
 * read by the fetcher, a delivery is sent by the sender.
 */

/** A research run's record carries its pinned recipe; a deterministic run's does not. */
const kindOf = (evidence: RunEvidence): RunKind => (evidence.recipe ? "research" : "deterministic");

const durationOf = (run: RunRecord): number | null =>
  run.startedAt === null || run.completedAt === null ? null : Date.parse(run.completedAt) - Date.parse(run.startedAt);

/**
 * What a run's trace spans carry (run.<phase>, exported over OTLP when the host traces): its ids
 * and kind only, never page text, values or secrets.
 */
export const runSpanAttributes = (run: Pick<RunRecord, "id" | "datasetId">, kind: RunKind = "deterministic") => ({
  "gleaner.run.id": run.id,
  "gleaner.dataset.id": run.datasetId,
  "gleaner.run.kind": kind,
});

/** A run a worker claimed for the first time: its wait in the queue (a redelivery is no new start). */
export const countRunStarted = (run: RunRecord, kind: RunKind, redelivered: boolean) =>
  Effect.map(Metrics, (metrics) => {
    if (redelivered || run.startedAt === null) return;
    metrics.runStarted({ kind, queueWaitMs: Math.max(0, Date.parse(run.startedAt) - Date.parse(run.queuedAt)) });
  });

export const meteredStorage = (storage: StorageService, metrics: MetricsService): StorageService => ({
  ...storage,
  finishRun: (run, evidence) =>
    Effect.tap(storage.finishRun(run, evidence), (stored) =>
      Effect.sync(() => {
        // Counted only when this call finished the run (a repeated finish answers the run as it was).
        if (stored.status !== run.status || stored.completedAt !== run.completedAt) return;
        metrics.runFinished({ kind: kindOf(evidence), status: run.status, durationMs: durationOf(stored) });
      }),
    ),
  acceptRun: (acceptance) =>
    Effect.tap(storage.acceptRun(acceptance), (outcome) =>
      Effect.sync(() => {
        const kind = kindOf(acceptance.evidence);
        if (outcome._tag === "Accepted") {
          metrics.runFinished({ kind, status: "succeeded", durationMs: durationOf(outcome.run) });
          metrics.creditsCharged(acceptance.charge.pages);
        } else if (outcome._tag === "Held") {
          metrics.runHeld(acceptance.holdForDrift ? "drift" : "credits");
          metrics.runFinished({ kind, status: "held", durationMs: durationOf(outcome.run) });
        }
      }),
    ),
});

export const meteredFetcher = (fetcher: FetcherService, metrics: MetricsService): FetcherService => ({
  ...fetcher,
  read: (request) =>
    fetcher.read(request).pipe(
      Effect.tap((page) => Effect.sync(() => metrics.pageRead(page.notModified ? "not_modified" : "read", null))),
      Effect.tapError((failed) => Effect.sync(() => metrics.pageRead("failed", failed.failure.reason))),
    ),
});

export const meteredWebhookSender = (sender: WebhookSenderService, metrics: MetricsService): WebhookSenderService => ({
  send: (request) =>
    Effect.tap(sender.send(request), (outcome) =>
      Effect.sync(() => {
        const result =
          outcome.kind === "failed"
            ? "failed"
            : outcome.status >= 200 && outcome.status < 300
              ? "delivered"
              : "rejected";
        metrics.webhookDelivery(result, outcome.durationMs);
      }),
    ),
});
