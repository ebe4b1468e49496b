import type { RunEvidence } from "../run-domain.js";
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

/**
 * An entity: a record identity (rowKey). A deterministic run names it by its rowKey and identity
 * values; a research run by the entity's anchor and every alias it was seen under.
 */
export interface EntityView {
  /** The name diagnostics show: a research entity's anchor, else the rowKey. */
  readonly entity: string;
  readonly rowKey: string;
  /** Every name `entity=` matches. */
  readonly names: ReadonlyArray<string>;
  /** The names shown beside `entity` in the summary (a research entity's aliases, anchor included). */
  readonly aliases: ReadonlyArray<string>;
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
  /** By rowKey, in the order they were read; gone entities last. */
  readonly entities: ReadonlyMap<string, EntityView>;
  /** The name examples show for a row key: a research entity's name, else the key ("" for none). */
  readonly nameOf: (rowKey: string | null) => string;
  /** The id of the row an entity is stored as, when that row exists. */
  readonly rowIdOf: (rowKey: string) => string | null;
  readonly pageEvidenceOf: (url: string) => string | null;
  /** Pages read, once each: the page as read (deterministic) or its cleaned text (research), by URL. */
  readonly pagesRead: ReadonlyMap<string, string>;
  /** Reads that did not yield a page (stage `retrieval`); research refusals are not among them. */
  readonly notRead: ReadonlyArray<RunEvidence["failures"][number]>;
  /** The pages not read, once each (a page may fail more than one read). */
  readonly pagesNotRead: ReadonlySet<string | null>;
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

/** A research entity's names: its anchor and aliases (the recorded fact of its merged record). */
const researchNames = (entity: NonNullable<RecordFact["entity"]>) => [...new Set([entity.anchor, ...entity.aliases])];

const keyedView = (rowKey: string, views: ReadonlyArray<RecordView>, recovered: boolean): EntityView => {
  const research = views.find((v) => v.fact.entity)?.fact.entity;
  const conflicting = views.some((v) => (v.fact.entity?.conflicts.length ?? 0) > 0);
  const names = research ? researchNames(research) : namesOf(rowKey);
  return {
    entity: research?.anchor ?? rowKey,
    rowKey,
    names,
    aliases: research ? research.aliases : names.filter((n) => n !== rowKey),
    outcome: views.length > 1 || conflicting ? "ambiguous" : "present",
    recovered,
    records: views,
    gone: false,
  };
};

export const indexRun = (recording: RunRecording): RunIndex => {
  const evidence = recording.evidence;
  const plan = evidence?.plan ?? null;
  // A page's evidence is its body as read: the page (deterministic) or its cleaned text (research).
  const pageIds = new Map<string, string>();
  for (const a of evidence?.artifacts ?? []) {
    if ((a.kind === "page" || a.kind === "cleaned page text") && !pageIds.has(a.url)) pageIds.set(a.url, a.id);
  }
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
    entities.set(rowKey, keyedView(rowKey, views, returned.has(rowKey)));
  }
  for (const rowKey of reconciliation?.goneKeys ?? []) {
    if (entities.has(rowKey)) continue;
    const names = namesOf(rowKey);
    entities.set(rowKey, {
      entity: rowKey,
      rowKey,
      names,
      aliases: names.filter((n) => n !== rowKey),
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
  const notRead = (evidence?.failures ?? []).filter((f) => f.stage === "retrieval");
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
    nameOf: (rowKey) => (rowKey === null ? "" : (entities.get(rowKey)?.entity ?? rowKey)),
    pageEvidenceOf: (url) => pageIds.get(url) ?? null,
    pagesRead: pageIds,
    notRead,
    pagesNotRead: new Set(notRead.map((f) => f.url)),
    keys: { created, changed: new Set(reconciliation?.changedKeys ?? []), returned },
  };
};
