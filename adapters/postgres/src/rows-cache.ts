import { type RowRecord, type RunAcceptance, rowsAfterAcceptance } from "@gleaner/core";

// A process's decoded rows of the datasets it ran last (decision 0035). Reading back and decoding a
// dataset's 1000 rows was most of what an unchanged PostgreSQL re-run spent beyond the memory
// store's (~25 ms and the garbage it leaves). Rows are kept with the version of the dataset's rows
// they were read at, and used only while the database still says that version.

/**
 * The version of a dataset's rows: its revision counter and the run of its last sighting. Every
 * write to a dataset's rows changes it: an edit appends a revision; an acceptance replaces the
 * sighting with its own run, whatever it writes (rows.ts sendSighting); no statement deletes rows.
 */
export const rowsVersion = (lastSequence: string | number, sightingRunId: string | null): string =>
  `${lastSequence}:${sightingRunId ?? ""}`;

export interface CachedRows {
  readonly version: string;
  readonly rows: ReadonlyArray<RowRecord>;
}

export interface RowsCache {
  /** Whether anything is kept (a capacity above 0). */
  readonly enabled: boolean;
  /** Rows checked against the database on every use (tests): a difference is a failure. */
  readonly verify: boolean;
  readonly get: (datasetId: string) => CachedRows | undefined;
  /** Keeps `rows` as the dataset's at `version` (the least recently used datasets make room). */
  readonly set: (datasetId: string, version: string, rows: ReadonlyArray<RowRecord>) => void;
  readonly drop: (datasetId: string) => void;
  /**
   * After `acceptance` committed on rows at `before`: when the rows kept are those, they become
   * `after`'s (core's `rowsAfterAcceptance`, as the database now answers them); otherwise they are dropped.
   */
  readonly accepted: (acceptance: RunAcceptance, before: string, after: string) => void;
}

export interface RowsCacheConfig {
  /** Rows kept across datasets (0 keeps none). */
  readonly rows: number;
  readonly verify?: boolean;
}

export const makeRowsCache = ({ rows: capacity, verify = false }: RowsCacheConfig): RowsCache => {
  // Map order is recency: a use moves an entry to the end, and room is made from the front.
  const entries = new Map<string, CachedRows>();
  let held = 0;
  const drop = (datasetId: string) => {
    const entry = entries.get(datasetId);
    if (entry === undefined) return;
    held -= entry.rows.length;
    entries.delete(datasetId);
  };
  const set = (datasetId: string, version: string, rows: ReadonlyArray<RowRecord>) => {
    drop(datasetId);
    if (capacity <= 0 || rows.length > capacity) return;
    for (const [oldest] of entries) {
      if (held + rows.length <= capacity) break;
      drop(oldest);
    }
    entries.set(datasetId, { version, rows });
    held += rows.length;
  };
  return {
    enabled: capacity > 0,
    verify,
    get: (datasetId) => {
      const entry = entries.get(datasetId);
      if (entry !== undefined) {
        entries.delete(datasetId);
        entries.set(datasetId, entry);
      }
      return entry;
    },
    set,
    drop,
    accepted: (acceptance, before, after) => {
      const datasetId = acceptance.run.datasetId;
      const entry = entries.get(datasetId);
      if (entry?.version === before) set(datasetId, after, rowsAfterAcceptance(entry.rows, acceptance));
      else drop(datasetId);
    },
  };
};
