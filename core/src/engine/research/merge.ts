import * as Effect from "effect/Effect";
import type { RecordFact } from "../../run-domain.js";
import { recordFact } from "../../rules/record-fact.js";
import type { EntityKind } from "../../schema/research.js";
import type { ResearchRowIdentity } from "../../schema/row.js";
import type { Cell } from "../coerce.js";
import { sha256Hex } from "../../digest.js";
import type { ExtractedRecord } from "../extract.js";
import { bareNameKey, nameKey } from "./grounding.js";
import type { Candidate } from "./validate.js";

const maxAliases = 100;
const maxAliasChars = 200;

/** One entity after cross-page merging: the row a research run writes. */
export interface MergedEntity {
  readonly identity: ResearchRowIdentity;
  readonly record: ExtractedRecord;
  readonly fact: RecordFact;
}

/**
 * Union-find over candidates: two candidates sharing a normalised name or alias, with or without its
 * legal form ("Apple Inc." and "Apple"), are one entity.
 */
const groupsOf = (candidates: ReadonlyArray<Candidate>): Candidate[][] => {
  const parent = candidates.map((_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) {
      parent[i] = parent[parent[i] as number] as number;
      i = parent[i] as number;
    }
    return i;
  };
  const owner = new Map<string, number>();
  candidates.forEach((c, i) => {
    for (const name of [c.name, ...c.aliases]) {
      for (const key of [nameKey(name), bareNameKey(name)]) {
        if (key === "") continue;
        const other = owner.get(key);
        if (other === undefined) owner.set(key, i);
        else parent[find(i)] = find(other);
      }
    }
  });
  const groups = new Map<number, Candidate[]>();
  candidates.forEach((c, i) => {
    const root = find(i);
    groups.set(root, [...(groups.get(root) ?? []), c]);
  });
  return [...groups.values()];
};

/**
 * The value the most voters give, ties going to the first seen (page order), so a rerun picks the
 * same. Each item is a voter unless `voterOf` says whose it is (a page counts once, however often it
 * gives the value).
 */
const mostFrequent = <T>(
  items: ReadonlyArray<T>,
  keyOf: (t: T) => string,
  voterOf: (t: T, i: number) => string = (_t, i) => String(i),
): T => {
  const voters = new Map<string, Set<string>>();
  items.forEach((item, i) => {
    voters.set(keyOf(item), (voters.get(keyOf(item)) ?? new Set()).add(voterOf(item, i)));
  });
  const support = (item: T) => voters.get(keyOf(item))?.size ?? 0;
  let best = items[0] as T;
  for (const item of items) if (support(item) > support(best)) best = item;
  return best;
};

interface CellChoice {
  readonly cell: Cell;
  readonly source: { readonly pageUrl: string; readonly entryId: string } | null;
  readonly conflict: {
    readonly values: ReadonlyArray<string>;
    readonly choices: ReadonlyArray<{ value: string; pageUrl: string; quote: string | null; written: boolean }>;
  } | null;
}

/** The written rule for pages that disagree on a cell (diagnostics quote it). */
export const conflictRule =
  "the value most pages support is written (a page counts once, however often it gives the value); a tie goes to the page read first";

/**
 * One cell of a merged entity: the best-supported grounded value (`conflictRule`); a disagreement
 * is recorded with every value, its page and quote, and which one was written.
 */
const chooseCell = (group: ReadonlyArray<Candidate>, fieldId: string): CellChoice => {
  const kept = group.flatMap((c) => {
    const cell = c.cells.get(fieldId);
    return cell && cell.cell.value !== null && cell.entryId !== null
      ? [{ cell: cell.cell, quote: cell.quote, source: { pageUrl: c.pageUrl, entryId: cell.entryId } }]
      : [];
  });
  const valueKey = (k: { readonly cell: Cell }) => JSON.stringify(k.cell.value);
  if (kept.length > 0) {
    const { quote: _quote, ...best } = mostFrequent(kept, valueKey, (k) => k.source.pageUrl);
    const written = valueKey(best);
    const distinct = [...new Set(kept.map(valueKey))];
    if (distinct.length <= 1) return { ...best, conflict: null };
    // Each value once per page that gave it, with the first quote the page gave for it.
    const seen = new Set<string>();
    const perPage = kept.filter((k) => {
      const key = `${k.source.pageUrl}\n${valueKey(k)}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
    return {
      ...best,
      conflict: {
        values: distinct.map((v) => String(JSON.parse(v))),
        choices: perPage.map((k) => ({
          value: String(k.cell.value),
          pageUrl: k.source.pageUrl,
          quote: k.quote,
          written: valueKey(k) === written,
        })),
      },
    };
  }
  const failed = group.map((c) => c.cells.get(fieldId)).find((c) => c?.cell.missingReason === "extraction_failed");
  return {
    cell: failed?.cell ?? { value: null, missingReason: "not_found", raw: null },
    source: null,
    conflict: null,
  };
};

/** The row key of an entity: `entity:` + sha256 of its kind and normalised anchor. */
export const entityKey = (kind: EntityKind, anchor: string) =>
  Effect.map(sha256Hex(`${kind}\n${nameKey(anchor)}`), (hex) => `entity:${hex}`);

/**
 * The preview phase: merges candidates seen on several pages or under several names into
 * entities, each with a stable identity, the best-supported value per cell and its conflicts.
 */
export const mergeCandidates = (candidates: ReadonlyArray<Candidate>, fieldIds: ReadonlyArray<string>) =>
  Effect.forEach(groupsOf(candidates), (group) =>
    Effect.gen(function* () {
      const first = group[0] as Candidate;
      // The identity must not depend on the order pages were read in (search results come in any
      // order): ties go to the fuller name, then the first in alphabetical order.
      const byName = [...group].sort(
        (a, b) => b.name.length - a.name.length || nameKey(a.name).localeCompare(nameKey(b.name)),
      );
      const kind = mostFrequent(
        [...group].sort((a, b) => a.kind.localeCompare(b.kind)),
        (c) => c.kind,
      ).kind;
      const anchor = mostFrequent(byName, (c) => nameKey(c.name)).name;
      const aliases = new Map<string, string>();
      for (const name of [anchor, ...group.flatMap((c) => [c.name, ...c.aliases])]) {
        const key = nameKey(name);
        if (key !== "" && !aliases.has(key)) aliases.set(key, name.slice(0, maxAliasChars));
      }
      const key = yield* entityKey(kind, anchor);
      const identity: ResearchRowIdentity = {
        version: 1,
        key,
        kind,
        anchor: anchor.slice(0, 4096),
        aliases: [...aliases.values()].slice(0, maxAliases),
      };
      const choices = new Map(fieldIds.map((id) => [id, chooseCell(group, id)]));
      const record: ExtractedRecord = {
        pageUrl: first.pageUrl,
        index: first.index,
        entryId: first.nameEntryId,
        cells: new Map([...choices].map(([id, c]) => [id, c.cell])),
        rowKey: key,
        identity,
        cellSources: new Map([...choices].flatMap(([id, c]) => (c.source ? [[id, c.source] as const] : []))),
      };
      const fact: RecordFact = {
        ...recordFact(record),
        entity: {
          kind,
          anchor: identity.anchor,
          aliases: identity.aliases,
          pages: [...new Set(group.map((c) => c.pageUrl))],
          conflicts: [...choices].flatMap(([fieldId, c]) => (c.conflict ? [{ fieldId, ...c.conflict }] : [])),
        },
      };
      return { identity, record, fact } satisfies MergedEntity;
    }),
  );
