import type { ApiKeyRecord, DatasetRecord, LedgerEntry, Owner } from "@gleaner/core";

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
  readonly ledger: Array<LedgerEntry & { readonly ownerId: string }> = [];
}
