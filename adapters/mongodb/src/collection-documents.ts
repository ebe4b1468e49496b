import type { OutboxMessage, StoredExtraction, WebhookAttempt, WebhookEventType } from "@gleaner/core";
import type { UUID } from "mongodb";

/**
 * The documents of the webhook, page-read and held-outcome collections, apart from the code that
 * reads and writes them, so schema.ts can name every collection's type without importing that code.
 */

export interface WebhookDoc {
  readonly _id: UUID;
  readonly ownerId: UUID;
  readonly url: string;
  readonly events: WebhookEventType[];
  readonly datasetId: UUID | null;
  readonly secret: string;
  readonly createdAt: Date;
}

export interface WebhookMessageDoc {
  /** The webhook-id. */
  readonly _id: string;
  readonly webhookId: UUID;
  readonly datasetId: UUID;
  /** Orders one dataset's messages: createdAt in ms * 1000 + the index in its run's batch. */
  readonly position: number;
  readonly payload: OutboxMessage["payload"];
  readonly status: OutboxMessage["status"];
  readonly attempts: number;
  readonly nextAttemptAt: Date | null;
  readonly createdAt: Date;
}

export interface WebhookAttemptDoc extends Omit<WebhookAttempt, "webhookId" | "nextRetryAt" | "attemptedAt"> {
  readonly webhookId: UUID;
  readonly nextRetryAt: Date | null;
  readonly attemptedAt: Date;
}

/**
 * One page of a dataset's newest accepted run (decision 0042), keyed by dataset and the URL the
 * engine asked for. Unlike PostgreSQL this store keeps no body per digest, so the body is kept here
 * (when within SPEC's 64 KiB artifact limit) to stand for a 304.
 */
export interface PageReadDoc {
  readonly datasetId: UUID;
  readonly url: string;
  readonly runId: UUID;
  readonly recipe: string;
  readonly finalUrl: string;
  readonly sha256: string;
  readonly contentType: string;
  readonly etag: string | null;
  readonly lastModified: string | null;
  readonly extraction: StoredExtraction | null;
  readonly body: string | null;
}

/**
 * A dataset's held outcome (decision 0040), by dataset id: one per dataset. The outcome is kept as
 * its JSON text, so record and cell keys never meet BSON's rules for field names.
 */
export interface HeldOutcomeDoc {
  readonly _id: UUID;
  readonly runId: UUID;
  readonly outcome: string;
}
