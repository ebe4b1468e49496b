import {
  DatasetId,
  OutboxMessage,
  outboxMessagesForRun,
  type RunChanges,
  type RunRecord,
  type StorageFailure,
  storedDecoder,
  WebhookAttempt,
  WebhookRecord,
  type WebhookStorage,
} from "@gleaner/core";
import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import { allDecoded, type Db, firstDecoded, iso, isoOrNull, isUuid, type Sql, type TableRow } from "./db.js";

// Rows are decoded with core's webhook schemas (a stored value they refuse is a StorageFailure
// naming the record and the field), never cast: a malformed payload is not signed and sent.

const webhookColumns = "id, owner_id, url, events, dataset_id, secret, created_at";
const decodeWebhook = storedDecoder(WebhookRecord, "PostgreSQL", "webhook");
const toWebhook = (row: TableRow) =>
  decodeWebhook({
    id: row.id,
    ownerId: row.owner_id,
    url: row.url,
    events: row.events,
    datasetId: row.dataset_id,
    secret: row.secret,
    createdAt: iso(row.created_at),
  });

const decodeMessage = storedDecoder(OutboxMessage, "PostgreSQL", "webhook message");
const toMessage = (row: TableRow) =>
  decodeMessage({
    id: row.id,
    webhookId: row.webhook_id,
    datasetId: row.dataset_id,
    payload: row.payload,
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: isoOrNull(row.next_attempt_at),
    createdAt: iso(row.created_at),
  });

const decodeAttempt = storedDecoder(WebhookAttempt, "PostgreSQL", "webhook attempt");
const toAttempt = (row: TableRow) =>
  decodeAttempt(
    {
      messageId: row.message_id,
      webhookId: row.webhook_id,
      eventType: row.event_type,
      attempt: row.attempt,
      status: row.status,
      responseStatus: row.response_status,
      error: row.error,
      durationMs: row.duration_ms,
      nextRetryAt: isoOrNull(row.next_retry_at),
      attemptedAt: iso(row.attempted_at),
    },
    `${String(row.message_id)} #${String(row.attempt)}`,
  );
const decodeDatasetId = storedDecoder(DatasetId, "PostgreSQL", "webhook message's dataset id");

/**
 * Writes a finished run's outbox messages inside the caller's transaction (acceptRun, finishRun):
 * core says which; the run's outcome and its events commit together or not at all.
 */
export const writeOutbox = (
  tx: Sql,
  run: RunRecord,
  changes: RunChanges | null,
  heldFor: Parameters<typeof outboxMessagesForRun>[3] = null,
): Effect.Effect<void, StorageFailure> =>
  Effect.gen(function* () {
    const webhooks = yield* tx.query(
      `select ${webhookColumns} from webhooks where owner_id = $1 order by created_at, id`,
      [run.ownerId],
    );
    const messages = outboxMessagesForRun(run, yield* allDecoded(toWebhook)(webhooks), changes, heldFor);
    if (messages.length === 0) return;
    // One statement, rows in the array's order, so position follows core's order.
    yield* tx.query(
      `insert into webhook_messages (id, webhook_id, dataset_id, payload, status, attempts, next_attempt_at, created_at)
       select m.id, m.webhook_id, m.dataset_id, m.payload, m.status, m.attempts, m.next_attempt_at, m.created_at
         from rows from (jsonb_to_recordset($1::jsonb) as (id text, webhook_id uuid, dataset_id uuid, payload jsonb,
              status text, attempts integer, next_attempt_at timestamptz, created_at timestamptz))
              with ordinality as m(id, webhook_id, dataset_id, payload, status, attempts, next_attempt_at, created_at, n)
        order by m.n
       on conflict (id) do nothing`,
      [
        JSON.stringify(
          messages.map((m) => ({
            id: m.id,
            webhook_id: m.webhookId,
            dataset_id: m.datasetId,
            payload: m.payload,
            status: m.status,
            attempts: m.attempts,
            next_attempt_at: m.nextAttemptAt,
            created_at: m.createdAt,
          })),
        ),
      ],
    );
  });

/** Each webhook's oldest pending message of one dataset (later ones wait behind it). */
const headsOf = `select distinct on (webhook_id) id, webhook_id, next_attempt_at, position from webhook_messages
                  where dataset_id = $1 and status = 'pending' order by webhook_id, position`;

export const makeWebhookMethods = (db: Db): WebhookStorage => ({
  insertWebhook: (w) =>
    db
      .query(`insert into webhooks (${webhookColumns}) values ($1, $2, $3, $4, $5, $6, $7)`, [
        w.id,
        w.ownerId,
        w.url,
        w.events,
        w.datasetId,
        w.secret,
        w.createdAt,
      ])
      .pipe(Effect.asVoid),

  listWebhooks: (ownerId) =>
    !isUuid(ownerId)
      ? Effect.succeed([])
      : db
          .query(`select ${webhookColumns} from webhooks where owner_id = $1 order by created_at, id`, [ownerId])
          .pipe(Effect.flatMap(allDecoded(toWebhook))),

  getWebhook: (ownerId, id) =>
    !isUuid(ownerId) || !isUuid(id)
      ? Effect.succeed(Option.none())
      : db
          .query(`select ${webhookColumns} from webhooks where id = $1 and owner_id = $2`, [id, ownerId])
          .pipe(Effect.flatMap(firstDecoded(toWebhook))),

  // Its messages and attempts go with it (on delete cascade).
  deleteWebhook: (ownerId, id) =>
    !isUuid(ownerId) || !isUuid(id)
      ? Effect.succeed(false)
      : db
          .query("delete from webhooks where id = $1 and owner_id = $2 returning id", [id, ownerId])
          .pipe(Effect.map((rows) => rows.length > 0)),

  listWebhookAttempts: (webhookId, limit) =>
    !isUuid(webhookId)
      ? Effect.succeed([])
      : db
          .query(
            `select * from webhook_attempts where webhook_id = $1 order by attempted_at desc, attempt desc limit $2`,
            [webhookId, limit],
          )
          .pipe(Effect.flatMap(allDecoded(toAttempt))),

  // One UPDATE re-checked under the row lock: of two workers, the second finds the lease moved and takes nothing.
  claimWebhookMessage: (datasetId, now, leaseUntil, skip = []) =>
    !isUuid(datasetId)
      ? Effect.succeed(Option.none())
      : Effect.gen(function* () {
          const [claimed] = yield* db.query(
            `update webhook_messages set next_attempt_at = $3
              where id = (select id from (${headsOf}) heads
                           where next_attempt_at <= $2 and webhook_id <> all($4::uuid[]) order by position limit 1)
                and status = 'pending' and next_attempt_at <= $2
              returning *`,
            [datasetId, now, leaseUntil, skip],
          );
          if (!claimed) return Option.none();
          const [webhook] = yield* db.query(`select ${webhookColumns} from webhooks where id = $1`, [
            claimed.webhook_id,
          ]);
          if (!webhook) return Option.none();
          return Option.some({ message: yield* toMessage(claimed), webhook: yield* toWebhook(webhook) });
        }),

  releaseWebhookMessage: (messageId, dueAt) =>
    db
      .query("update webhook_messages set next_attempt_at = $2 where id = $1 and status = 'pending'", [
        messageId,
        dueAt,
      ])
      .pipe(Effect.asVoid),

  recordWebhookAttempt: (a, next) =>
    db.transaction((tx) =>
      Effect.gen(function* () {
        const updated = yield* tx.query(
          `update webhook_messages set status = $2, next_attempt_at = $3, attempts = attempts + 1 where id = $1 returning id`,
          [a.messageId, next.status, next.nextAttemptAt],
        );
        // The webhook was deleted meanwhile: its messages went with it, and so does this attempt.
        if (updated.length === 0) return;
        yield* tx.query(
          `insert into webhook_attempts (message_id, webhook_id, event_type, attempt, status, response_status, error,
                                         duration_ms, next_retry_at, attempted_at)
           values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) on conflict do nothing`,
          [
            a.messageId,
            a.webhookId,
            a.eventType,
            a.attempt,
            a.status,
            a.responseStatus,
            a.error,
            a.durationMs,
            a.nextRetryAt,
            a.attemptedAt,
          ],
        );
      }),
    ),

  // Served by webhook_messages_settled (migration 0007); the attempts go with them (on delete cascade).
  pruneWebhookMessages: (createdBefore, limit) =>
    db
      .query(
        `with doomed as (select id from webhook_messages where status <> 'pending' and created_at < $1 limit $2)
         delete from webhook_messages m using doomed where m.id = doomed.id returning m.id`,
        [createdBefore, limit],
      )
      .pipe(Effect.map((rows) => rows.length)),

  // Served by webhook_messages_pending (dataset_id first, pending rows only).
  hasDueWebhookMessages: (datasetId, now) =>
    !isUuid(datasetId)
      ? Effect.succeed(false)
      : db
          .query<{ due: boolean }>(
            `select exists (select 1 from webhook_messages
                             where dataset_id = $1 and status = 'pending' and next_attempt_at <= $2) as due`,
            [datasetId, now],
          )
          .pipe(Effect.map((rows) => rows[0]?.due === true)),

  pendingWebhookDatasets: () =>
    db
      .query<{ dataset_id: string; due_at: Date }>(
        `select dataset_id, min(next_attempt_at) as due_at from (
           select distinct on (dataset_id, webhook_id) dataset_id, next_attempt_at from webhook_messages
            where status = 'pending' order by dataset_id, webhook_id, position) heads
          group by dataset_id`,
      )
      .pipe(
        Effect.flatMap(
          allDecoded((r) =>
            Effect.map(decodeDatasetId(r.dataset_id), (datasetId) => ({ datasetId, dueAt: iso(r.due_at) })),
          ),
        ),
      ),
});
