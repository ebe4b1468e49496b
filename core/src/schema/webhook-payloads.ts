import * as Schema from "effect/Schema";
import { DatasetId, DateTime, RunId } from "./ids.js";
import { RowDeltas, RunStatus } from "./run.js";

const Count = Schema.Int.pipe(Schema.greaterThanOrEqualTo(0));

/**
 * The JSON bodies of webhook deliveries, as the Standard Webhooks specification shapes them
 * (`type`, `timestamp`, `data`). Schemas, so a message read back from the outbox is checked before
 * it is signed and sent. Payloads never carry row data: a receiver fetches the revisions with
 * GET /changes, where the owner's key and the feed's rules apply.
 */
export const RunFinishedData = Schema.Struct({
  runId: RunId,
  datasetId: DatasetId,
  status: RunStatus,
  rowDeltas: RowDeltas,
  creditsCharged: Count,
});
export type RunFinishedData = typeof RunFinishedData.Type;

export const RowsChangedData = Schema.Struct({
  datasetId: DatasetId,
  /** The change-feed window to fetch: GET /changes?after=&through=. */
  after: Count,
  through: Count,
  counts: Schema.Struct({ created: Count, updated: Count, missing: Count, returned: Count, baseline: Count }),
});
export type RowsChangedData = typeof RowsChangedData.Type;

/** A run held (decision 0040): nothing was written or charged; the owner may accept it. */
export const RunHeldData = Schema.Struct({
  runId: RunId,
  datasetId: DatasetId,
  reason: Schema.Literal("drift", "credits"),
  /** The run's `error`: why it was held, in plain words. */
  message: Schema.String,
});
export type RunHeldData = typeof RunHeldData.Type;

export const RunFinishedPayload = Schema.Struct({
  type: Schema.Literal("run.finished"),
  timestamp: DateTime,
  data: RunFinishedData,
});
export type RunFinishedPayload = typeof RunFinishedPayload.Type;

export const RowsChangedPayload = Schema.Struct({
  type: Schema.Literal("rows.changed"),
  timestamp: DateTime,
  data: RowsChangedData,
});
export type RowsChangedPayload = typeof RowsChangedPayload.Type;

export const RunHeldPayload = Schema.Struct({
  type: Schema.Literal("run.held"),
  timestamp: DateTime,
  data: RunHeldData,
});
export type RunHeldPayload = typeof RunHeldPayload.Type;

export const WebhookPayload = Schema.Union(RunFinishedPayload, RowsChangedPayload, RunHeldPayload);
export type WebhookPayload = typeof WebhookPayload.Type;
