import type { NewRevision, RunRecord } from "../run-domain.js";
import type { RowsChangedData, RunHeldData, WebhookPayload } from "../schema/webhook-payloads.js";
import type { OutboxMessage, WebhookRecord } from "../webhook-domain.js";
import { runFinishedPayload, type WebhookEventType } from "./webhook-delivery.js";

/** A webhook as the API lists it: everything but the secret. */
export type WebhookView = Omit<WebhookRecord, "secret" | "ownerId">;
export const toWebhookView = ({ secret: _secret, ownerId: _ownerId, ...view }: WebhookRecord): WebhookView => view;

const webhookMatches = (webhook: WebhookRecord, run: RunRecord, type: WebhookEventType): boolean =>
  webhook.ownerId === run.ownerId &&
  webhook.events.includes(type) &&
  (webhook.datasetId === null || webhook.datasetId === run.datasetId);

const countByKind = (revisions: ReadonlyArray<Pick<NewRevision, "kind">>): RowsChangedData["counts"] => {
  const counts = { created: 0, updated: 0, missing: 0, returned: 0, baseline: 0 };
  for (const revision of revisions) counts[revision.kind] += 1;
  return counts;
};

/** What a finished run's change-feed window was: the store assigns sequences after `lastSequence`. */
export interface RunChanges {
  readonly lastSequenceBefore: number;
  readonly revisions: ReadonlyArray<Pick<NewRevision, "kind">>;
}

const messageSuffix = { "run.finished": "finished", "rows.changed": "changed", "run.held": "held" } as const;

/**
 * The outbox messages a finished run leaves, written in the same transaction as the run's outcome:
 * an accepted run -> `run.finished`, then `rows.changed` when it wrote revisions; a failed or
 * blocked run -> `run.finished` only; a run held for drift or credits (`heldFor`) -> `run.held`, and
 * `run.finished` once its owner accepts it; any other state -> nothing, since nothing was decided
 * yet. One message per matching webhook of the run's owner, in that order.
 */
export const outboxMessagesForRun = (
  run: RunRecord,
  webhooks: ReadonlyArray<WebhookRecord>,
  changes: RunChanges | null,
  heldFor: RunHeldData["reason"] | null = null,
): ReadonlyArray<OutboxMessage> => {
  const at = run.completedAt ?? run.queuedAt;
  const held = run.status === "held" && heldFor !== null;
  if (run.status !== "succeeded" && run.status !== "failed" && run.status !== "blocked" && !held) return [];
  const payloads: WebhookPayload[] = held
    ? [
        {
          type: "run.held",
          timestamp: at,
          data: { runId: run.id, datasetId: run.datasetId, reason: heldFor, message: run.error ?? "" },
        },
      ]
    : [runFinishedPayload(run, at)];
  if (run.status === "succeeded" && changes && changes.revisions.length > 0) {
    payloads.push({
      type: "rows.changed",
      timestamp: at,
      data: {
        datasetId: run.datasetId,
        after: changes.lastSequenceBefore,
        through: changes.lastSequenceBefore + changes.revisions.length,
        counts: countByKind(changes.revisions),
      },
    });
  }
  return payloads.flatMap((payload) =>
    webhooks
      .filter((webhook) => webhookMatches(webhook, run, payload.type))
      .map((webhook) => ({
        id: `msg_${run.id}_${messageSuffix[payload.type]}_${webhook.id}`,
        webhookId: webhook.id,
        datasetId: run.datasetId,
        payload,
        status: "pending" as const,
        attempts: 0,
        nextAttemptAt: at,
        createdAt: at,
      })),
  );
};
