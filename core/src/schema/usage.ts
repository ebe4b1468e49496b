import * as Schema from "effect/Schema";
import { DatasetId, DateTime, LedgerEntryId, RunId } from "./ids.js";

/** SPEC.md leaves Usage open; this is the shape Gleaner commits to (see docs/decisions). */
export const LedgerEntry = Schema.Struct({
  id: LedgerEntryId,
  kind: Schema.Literal("grant", "charge", "refund"),
  amount: Schema.Int,
  runId: Schema.NullOr(RunId),
  datasetId: Schema.NullOr(DatasetId),
  pages: Schema.NullOr(Schema.Int.pipe(Schema.greaterThanOrEqualTo(0))),
  createdAt: DateTime,
}).annotations({ identifier: "LedgerEntry" });
export type LedgerEntry = typeof LedgerEntry.Type;

export const Usage = Schema.Struct({
  balance: Schema.Int,
  entries: Schema.Array(LedgerEntry),
}).annotations({ identifier: "Usage" });
export type Usage = typeof Usage.Type;
