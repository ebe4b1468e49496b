import * as Context from "effect/Context";
import type { DatasetStorage } from "./dataset-storage.js";
import type { RowStorage } from "./row-storage.js";
import type { RunStorage } from "./run-storage.js";
import type { StoreConnections } from "./store-connections.js";
import type { WebhookStorage } from "./webhook-storage.js";

/**
 * Durable state, in the areas it already has, one file each: owners, keys and datasets; runs and
 * their evidence (with page reads and held outcomes); rows and their history; webhooks. Each method is one
 * atomic unit of work: it either happens whole or not at all, so an adapter never leaves half a
 * dataset or half a run behind. Rules (validation, what a change means) live in core; an adapter
 * stores and reads, and enforces only the uniqueness and compare-and-set guards named here. Methods
 * marked optional only make something faster; core falls back without them (storage-fallbacks.ts).
 */
export interface StorageService extends DatasetStorage, RunStorage, RowStorage, WebhookStorage, StoreConnections {}

export class Storage extends Context.Tag("@gleaner/core/Storage")<Storage, StorageService>() {}

export type { DatasetStorage, FoundApiKey } from "./dataset-storage.js";
export type { ClaimedRun, OwnerActivity, RunStorage } from "./run-storage.js";
export type { RowAsOf, RowStorage } from "./row-storage.js";
export type { WebhookStorage } from "./webhook-storage.js";
export type { ConnectionPoolState, StoreConnections } from "./store-connections.js";
export type { PageReadStorage } from "./page-read-storage.js";
export type { HeldOutcomeStorage } from "./held-outcome-storage.js";
