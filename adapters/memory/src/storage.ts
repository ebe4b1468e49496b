import { conflicts, type DatasetRecord, type StorageService, type StoredDataset } from "@gleaner/core";
import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import { makeMemoryRuns } from "./runs.js";
import { makeMemoryRows } from "./rows.js";
import type { MemoryState } from "./state.js";
import { makeMemoryWebhooks } from "./webhooks.js";

const newestFirst = (a: DatasetRecord, b: DatasetRecord): number =>
  a.createdAt === b.createdAt ? (a.id < b.id ? 1 : a.id > b.id ? -1 : 0) : a.createdAt < b.createdAt ? 1 : -1;

export const makeMemoryStorage = (state: MemoryState): StorageService => {
  // rowCount counts every current row, gone ones included: they are listed too.
  const stored = (record: DatasetRecord): StoredDataset => {
    const run = state.newestRun(record.id);
    return {
      record,
      rowCount: state.rowsOf(record.id).size,
      lastRun: run ? { id: run.id, status: run.status, completedAt: run.completedAt } : null,
    };
  };
  const nameOwner = (ownerId: string, name: string): DatasetRecord | undefined => {
    for (const d of state.datasets.values()) if (d.ownerId === ownerId && d.name === name) return d;
    return undefined;
  };

  return {
    createOwner: (owner) =>
      Effect.suspend(() => {
        if (state.ownerIdsByName.has(owner.name)) {
          return Effect.fail(conflicts.ownerExists(owner.name));
        }
        state.owners.set(owner.id, owner);
        state.ownerIdsByName.set(owner.name, owner.id);
        return Effect.void;
      }),
    findOwnerByName: (name) =>
      Effect.sync(() => Option.fromNullable(state.owners.get(state.ownerIdsByName.get(name) ?? ""))),
    addApiKey: (key) => Effect.sync(() => void state.apiKeys.set(key.hash, key)),
    findApiKey: (hash) =>
      Effect.sync(() => {
        const key = state.apiKeys.get(hash);
        const owner = key && state.owners.get(key.ownerId);
        return key && owner ? Option.some({ key, owner, balance: state.balanceOf(owner.id) }) : Option.none();
      }),

    listApiKeys: (ownerId) =>
      Effect.sync(() =>
        [...state.apiKeys.values()]
          .filter((k) => k.ownerId === ownerId)
          .sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0)),
      ),
    revokeApiKey: (ownerId, id) =>
      Effect.sync(() => {
        const found = [...state.apiKeys.values()].find((k) => k.ownerId === ownerId && k.id === id);
        if (found) state.apiKeys.delete(found.hash);
        return found !== undefined;
      }),
    markApiKeyUsed: (hash, at) =>
      Effect.sync(() => {
        const key = state.apiKeys.get(hash);
        if (key) state.apiKeys.set(hash, { ...key, lastUsedAt: at });
      }),
    insertDataset: (record) =>
      Effect.suspend(() => {
        if (nameOwner(record.ownerId, record.name)) return Effect.fail(conflicts.nameTaken(record.name));
        state.datasets.set(record.id, record);
        return Effect.void;
      }),
    getDataset: (ownerId, id) =>
      Effect.sync(() => {
        const record = state.datasets.get(id);
        return record && record.ownerId === ownerId ? Option.some(stored(record)) : Option.none();
      }),
    deleteDataset: (ownerId, id) =>
      Effect.sync(() => {
        if (state.datasets.get(id)?.ownerId !== ownerId) return false;
        state.deleteDataset(id);
        return true;
      }),
    listDatasets: (ownerId, { after, limit }) =>
      Effect.sync(() =>
        [...state.datasets.values()]
          .filter((d) => d.ownerId === ownerId)
          .filter(
            (d) => !after || d.createdAt < after.createdAt || (d.createdAt === after.createdAt && d.id < after.id),
          )
          .sort(newestFirst)
          .slice(0, limit)
          .map(stored),
      ),
    updateDataset: (next) =>
      Effect.suspend(() => {
        const current = state.datasets.get(next.id);
        if (!current || current.revision !== next.revision - 1) {
          return Effect.fail(conflicts.staleDataset());
        }
        const holder = nameOwner(next.ownerId, next.name);
        if (holder && holder.id !== next.id) return Effect.fail(conflicts.nameTaken(next.name));
        state.datasets.set(next.id, next);
        return Effect.void;
      }),
    listActiveRoutines: () =>
      Effect.sync(() =>
        [...state.datasets.values()].flatMap((d) =>
          d.scheduleState?.status === "active"
            ? [{ datasetId: d.id, ownerId: d.ownerId, cron: d.scheduleState.cron }]
            : [],
        ),
      ),
    ...makeMemoryRuns(state),
    ...makeMemoryRows(state),
    ...makeMemoryWebhooks(state),
  };
};
