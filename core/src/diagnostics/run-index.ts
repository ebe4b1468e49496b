import type { RecordFact, RunPlanRecord } from "../run-domain.js";
import type { DatasetColumn } from "../schema/column.js";
import type { Outcome, RunRecording } from "./model.js";

/** One recorded record with its evidence ids. */
export interface RecordView {
  readonly fact: RecordFact;
  /** `<artifactId>#<index>`: item `index` of the page body kept as that artifact. */
  readonly evidenceId: string;
  /** The artifact id of the page the record was read from. */
  readonly pageEvidenceId: string;
}

/** An entity of a deterministic run: a record identity (rowKey), named by it and its values. */
export interface EntityView {
  readonly entity: string;
  readonly names: ReadonlyArray<string>;
  readonly outcome: Outcome;
  /** The row was missing before and this run saw it again. */
  readonly recovered: boolean;
  readonly records: ReadonlyArray<RecordView>;
  /** Not seen by a run that read its whole source: the row went missing. */
  readonly gone: boolean;
}

/** Lookups shared by every area: built once per answer from the recording. */
export interface RunIndex {
  readonly recording: RunRecording;
  readonly plan: RunPlanRecord | null;
  readonly collected: ReadonlyArray<DatasetColumn>;
  readonly records: ReadonlyArray<RecordView>;
  /** Records without an identity value: they cannot be named as entities. */
  readonly unkeyed: ReadonlyArray<RecordView>;
  /** By entity name (rowKey), in the order they were read; gone entities last. */
  readonly entities: ReadonlyMap<string, EntityView>;
  /** The id of the row an entity is stored as, when that row exists. */
  readonly rowIdOf: (rowKey: string) => string | null;
  readonly pageEvidenceOf: (url: string) => string | null;
  /** The failed checks that name a record, by `<pageUrl>#<index>`. */
  readonly checksNaming: ReadonlyMap<string, ReadonlyArray<string>>;
  /** The reconciliation's key lists as sets (empty when it was not reached). */
  readonly keys: {
    readonly created: ReadonlySet<string>;
    readonly changed: ReadonlySet<string>;
    readonly returned: ReadonlySet<string>;
  };
}

/** An entity's names: its rowKey, and each identity value when the identity is composite. */
const namesOf = (rowKey: string): string[] => {
  if (!rowKey.startsWith("[")) return [rowKey];
  try {
    const values: unknown = JSON.parse(rowKey);
    if (!Array.isArray(values)) return [rowKey];
    return [...new Set([rowKey, ...values.map((v) => String(v))])];
  } catch {
    return [rowKey];
  }
};

export const indexRun = (recording: RunRecording): RunIndex => {
  const evidence = recording.evidence;
  const plan = evidence?.plan ?? null;
  const pageIds = new Map((evidence?.artifacts ?? []).map((a) => [a.url, a.id]));
  const records: RecordView[] = (evidence?.facts ?? []).map((fact) => {
    const page = pageIds.get(fact.pageUrl) ?? fact.pageUrl;
    return { fact, evidenceId: `${page}#${fact.index}`, pageEvidenceId: page };
  });
  const reconciliation = plan?.reconciliation ?? null;
  const returned = new Set(reconciliation?.returnedKeys ?? []);
  const byKey = new Map<string, RecordView[]>();
  for (const r of records) {
    if (r.fact.rowKey === null) continue;
    byKey.set(r.fact.rowKey, [...(byKey.get(r.fact.rowKey) ?? []), r]);
  }
  const entities = new Map<string, EntityView>();
  for (const [rowKey, views] of byKey) {
    entities.set(rowKey, {
      entity: rowKey,
      names: namesOf(rowKey),
      outcome: views.length > 1 ? "ambiguous" : "present",
      recovered: returned.has(rowKey),
      records: views,
      gone: false,
    });
  }
  for (const rowKey of reconciliation?.goneKeys ?? []) {
    if (entities.has(rowKey)) continue;
    entities.set(rowKey, {
      entity: rowKey,
      names: namesOf(rowKey),
      outcome: "absent",
      recovered: false,
      records: [],
      gone: true,
    });
  }
  // New rows exist only once the run was accepted; rows it would have updated exist either way.
  const created = new Set(reconciliation?.created ?? []);
  const accepted = recording.run.status === "succeeded";
  const rowIdOf = (rowKey: string): string | null => {
    if (created.has(rowKey) && !accepted) return null;
    return reconciliation?.rowIds[rowKey] ?? plan?.knownRowIds?.[rowKey] ?? null;
  };
  const checksNaming = new Map<string, string[]>();
  for (const check of plan?.checks ?? []) {
    for (const r of check.records) {
      const at = `${r.pageUrl}#${r.index}`;
      checksNaming.set(at, [...(checksNaming.get(at) ?? []), check.checkId]);
    }
  }
  return {
    recording,
    plan,
    checksNaming,
    collected: recording.columns.filter((c) => c.ownership === "collected"),
    records,
    unkeyed: records.filter((r) => r.fact.rowKey === null),
    entities,
    rowIdOf,
    pageEvidenceOf: (url) => pageIds.get(url) ?? null,
    keys: { created, changed: new Set(reconciliation?.changedKeys ?? []), returned },
  };
};
