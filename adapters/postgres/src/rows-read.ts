import { type RowRecord, StorageFailure } from "@gleaner/core";
import * as Effect from "effect/Effect";
import { isDeepStrictEqual } from "node:util";
import { allDecoded, type Db } from "./db.js";
import { type RowTableRow, rowsSeen, seenRowColumns, toRow } from "./records.js";
import { type RowsCache, rowsVersion } from "./rows-cache.js";

// loadRows through the rows cache (decision 0035): one small statement asks the dataset's rows
// version; the rows are read and decoded only when the kept ones are not that version's.

/** The columns of a dataset row (alias d) its rows version is made of (rowsVersion). */
const rowsVersionColumns = `d.last_sequence::text as last_sequence,
  (select run_id from row_sightings where dataset_id = d.id) as sighting_run_id`;

interface VersionRow {
  readonly last_sequence: string;
  readonly sighting_run_id: string | null;
}

const versionOf = (row: VersionRow) => rowsVersion(row.last_sequence, row.sighting_run_id);

/**
 * The dataset's rows and the version they are, from one statement (one snapshot); null when there
 * is no such dataset. A dataset without rows answers one line of nulls beside its version.
 */
const versionedRows = (db: Db, datasetId: string) =>
  db
    .query<VersionRow & Partial<RowTableRow>>(
      `select v.last_sequence, v.sighting_run_id, ${seenRowColumns}
         from (select ${rowsVersionColumns} from datasets d where d.id = $1) v
         left join (${rowsSeen}) on r.dataset_id = $1`,
      [datasetId],
    )
    .pipe(
      Effect.flatMap((lines) =>
        lines[0] === undefined
          ? Effect.succeed(null)
          : Effect.map(
              allDecoded(toRow)(lines.filter((line): line is VersionRow & RowTableRow => line.id != null)),
              (rows) => ({ version: versionOf(lines[0]!), rows }),
            ),
      ),
    );

const byId = (rows: ReadonlyArray<RowRecord>) => [...rows].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

/** With `verify`: the kept rows against the stored ones, read again; a difference fails the read. */
const verified = (db: Db, datasetId: string, kept: { version: string; rows: ReadonlyArray<RowRecord> }) =>
  Effect.flatMap(versionedRows(db, datasetId), (stored) => {
    if (stored === null || stored.version !== kept.version) return Effect.void;
    const [a, b] = [byId(kept.rows), byId(stored.rows)];
    const at = a.length !== b.length ? -1 : a.findIndex((row, i) => !isDeepStrictEqual(row, b[i]));
    return at === -1 && a.length === b.length
      ? Effect.void
      : Effect.fail(
          new StorageFailure({
            message:
              `PostgreSQL: the rows kept for dataset ${datasetId} at ${kept.version} differ from the stored ones` +
              (at >= 0
                ? `: ${JSON.stringify(a[at])} against ${JSON.stringify(b[at])}`
                : ` (${a.length} against ${b.length})`),
          }),
        );
  });

/**
 * The dataset's rows: the kept ones while the database says their version, else read (and kept).
 * A version read after the kept rows were is as good as theirs: any write between changes it.
 */
export const cachedRows = (
  db: Db,
  cache: RowsCache,
  datasetId: string,
): Effect.Effect<ReadonlyArray<RowRecord>, StorageFailure> =>
  Effect.gen(function* () {
    const kept = cache.get(datasetId);
    if (kept !== undefined) {
      const [current] = yield* db.query<VersionRow>(`select ${rowsVersionColumns} from datasets d where d.id = $1`, [
        datasetId,
      ]);
      if (current !== undefined && versionOf(current) === kept.version) {
        if (cache.verify) yield* verified(db, datasetId, kept);
        return kept.rows;
      }
    }
    const read = yield* versionedRows(db, datasetId);
    if (read === null) {
      cache.drop(datasetId);
      return [];
    }
    cache.set(datasetId, read.version, read.rows);
    return read.rows;
  });
