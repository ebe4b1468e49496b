import type { OutlineElement } from "../ports/document-parser.js";
import type { ColumnInput, ColumnType } from "../schema/column.js";
import type { RenderMode } from "../schema/source.js";
import type { WantedColumn } from "../schema/sources.js";
import { findFields, type FoundField, recordParts } from "./fields.js";
import { chooseIdentity, extractionName, fieldNames } from "./names.js";
import { insideAny, type PageNode, pageTree, type PageTree, SUGGEST_MAX_ELEMENTS } from "./page-tree.js";
import { findPagination } from "./pagination.js";
import { recordGroups } from "./records.js";
import { itemSelectorFor } from "./selectors.js";

/** A suggested dataset before its preview: a POST /v1/datasets body and why it was chosen. */
export interface Candidate {
  readonly name: string;
  readonly columns: ReadonlyArray<ColumnInput>;
  /** The source as a client sends it (defaults left out). */
  readonly source: Readonly<Record<string, unknown>>;
  readonly why: string;
}

export interface SuggestOptions {
  readonly pageUrl: string;
  /** The URL links resolve against (the page's, or its `<base href>`). */
  readonly baseUrl: string;
  readonly render?: RenderMode;
  readonly columns?: ReadonlyArray<WantedColumn>;
  /** At most this many candidates (the best first). */
  readonly limit?: number;
}

/** How many record groups are looked at before the best `limit` distinct ones are kept. */
const groupsLooked = 12;
/** Fields per suggestion: enough for a listing's record, few enough to read in a table. */
const maxFields = 12;

const datasetName = (tree: PageTree, pageUrl: string, itemSelector: string): string => {
  const title = tree.byTag.get("title")?.[0];
  const label = (title ? tree.text(title) : "") || new URL(pageUrl).host;
  return `${label.slice(0, 80)} · ${itemSelector}`.slice(0, 120);
};

const kindWords: Record<FoundField["kind"], RegExp> = {
  link: /url|link|href|page/,
  image: /image|img|photo|picture|thumb|cover|poster|logo|avatar|icon/,
  title: /title|name|headline|label/,
  price: /price|cost|amount/,
  date: /date|time|posted|published|when/,
  number: /count|number|score|points|votes|rank|qty|quantity|total/,
  coded: /rating|stars|status|level/,
  text: /text|description|summary|snippet|body|content/,
};

/** How well a wanted column fits a found field (0: not at all). */
const affinity = (column: WantedColumn, field: FoundField, name: string): number => {
  const wanted = extractionName(column.name) ?? column.name.toLowerCase();
  let score = wanted === name ? 4 : name.includes(wanted) || wanted.includes(name) ? 2 : 0;
  if (kindWords[field.kind].test(wanted)) score += 2;
  if (column.description && kindWords[field.kind].test(column.description.toLowerCase())) score += 1;
  if (score > 0 && column.type === "number" && field.type === "number") score += 1;
  if (score > 0 && column.type === "number" && field.type !== "number" && field.kind !== "price") score -= 2;
  return score;
};

/** Wanted columns matched one to one onto found fields, best fits first; unmatched ones are named. */
const mapWanted = (wanted: ReadonlyArray<WantedColumn>, fields: ReadonlyArray<FoundField>, names: string[]) => {
  const pairs = wanted
    .flatMap((column, c) => fields.map((field, f) => ({ c, f, score: affinity(column, field, names[f]!) })))
    .filter((p) => p.score > 0)
    .sort((a, b) => b.score - a.score);
  const byColumn = new Map<number, number>();
  const usedFields = new Set<number>();
  for (const { c, f } of pairs) {
    if (byColumn.has(c) || usedFields.has(f)) continue;
    byColumn.set(c, f);
    usedFields.add(f);
  }
  return byColumn;
};

/**
 * Records the supported CSS cannot select (rows told apart only by what they hold) are offered by
 * the one part each has that it can: the element holding the most of each record's text among those
 * every record has once, a link or a heading first (a story's title link, say).
 */
const selectablePart = (tree: PageTree, members: ReadonlyArray<PageNode>) => {
  const parts = [...recordParts(members).values()]
    .filter((nodes): nodes is PageNode[] => nodes.every((n) => n !== null && tree.text(n).length > 0))
    .map((nodes) => ({
      nodes,
      weight: nodes.reduce((sum, n) => sum + tree.text(n).length, 0) * (/^(?:a|h[1-6])$/.test(nodes[0]!.tag) ? 2 : 1),
    }))
    .sort((a, b) => b.weight - a.weight);
  for (const { nodes } of parts.slice(0, 4)) {
    const found = itemSelectorFor(tree, nodes);
    if (found !== null) return found;
  }
  return null;
};

/** The item selector for a group (its members are already what wrappers wrap: records.ts). */
const itemSelectorOf = (tree: PageTree, members: ReadonlyArray<PageNode>) => {
  // Whole records picked up with other elements (a table's header row) read worse than a part of
  // each that is selected exactly: a header row has no key, and its run would fail.
  const whole = itemSelectorFor(tree, members);
  if (whole?.exact) return whole;
  const part = selectablePart(tree, members);
  return part?.exact ? part : (whole ?? part);
};

/**
 * Sources for the page's repeated records, best first, made from the page alone: every selector is
 * one the page's markup has, checked against the page here and by a preview before it is offered.
 */
export const suggestCandidates = (outline: OutlineElement, options: SuggestOptions): Candidate[] => {
  const tree = pageTree(outline);
  const { pagination, why: paginationWhy } = findPagination(tree, options.pageUrl);
  const candidates: Candidate[] = [];
  const seen = new Set<string>();
  const offered = new Set<PageNode>();
  // A selector that also picks up other elements, or leans on a build tool's class, counts for less.
  const ranked = recordGroups(tree)
    .slice(0, groupsLooked)
    .map((group) => ({ group, item: itemSelectorOf(tree, group.members) }))
    .filter((g): g is { group: (typeof g)["group"]; item: NonNullable<(typeof g)["item"]> } => g.item !== null)
    .map((g) => ({ ...g, score: g.group.score * (g.item.exact ? 1 : 0.6) * (g.item.generated ? 0.9 : 1) }))
    .sort((a, b) => b.score - a.score);
  for (const { group, item } of ranked) {
    if (candidates.length >= (options.limit ?? 5)) break;
    // Parts of records already offered (each record's prices, say) are not records of their own.
    if (item.matches.every((m) => insideAny(m, offered))) continue;
    const records = item.matches;
    for (const record of records) offered.add(record);
    // The same records reached by another element (an <li> and the <article> it wraps) are one suggestion.
    const signature = records.map((r) => tree.text(r)).join("\u0000");
    if (seen.has(signature)) continue;
    seen.add(signature);
    let fields = findFields(tree, records, options.baseUrl).slice(0, maxFields);
    let names = fieldNames(fields);
    let types = fields.map((f) => f.type);
    const descriptions: Array<string | undefined> = fields.map(() => undefined);
    let unmatched: string[] = [];
    if (options.columns) {
      const byColumn = mapWanted(options.columns, fields, names);
      unmatched = options.columns.filter((_, c) => !byColumn.has(c)).map((c) => c.name);
      const kept = [...byColumn.entries()].sort((a, b) => a[1] - b[1]);
      const identity = chooseIdentity(fields);
      // The key stays, under its own name, when no wanted column is it.
      const extra = identity.filter((i) => !kept.some(([, f]) => f === i));
      const order = [...kept.map(([c, f]) => ({ c, f })), ...extra.map((f) => ({ c: -1, f }))].sort(
        (a, b) => a.f - b.f,
      );
      const wanted = options.columns;
      fields = order.map(({ f }) => fields[f]!);
      names = order.map(({ c, f }) => (c >= 0 ? wanted[c]!.name : names[f]!));
      // A collected column is a string, number or boolean: a wanted date or url is read as its text.
      const collectable = (type: ColumnType) => (type === "date" || type === "url" ? "string" : type);
      types = order.map(({ c, f }) => (c >= 0 ? collectable(wanted[c]!.type) : types[f]!));
      order.forEach(({ c }, i) => {
        descriptions[i] = c >= 0 ? wanted[c]!.description : undefined;
      });
      if (fields.length === 0) continue;
    }
    const identity = chooseIdentity(fields).map((i) => names[i]!);
    const columns: ColumnInput[] = fields.map((_, i) => ({
      name: names[i]!,
      type: types[i]!,
      ownership: "collected",
      key: identity.includes(names[i]!),
      ...(descriptions[i] !== undefined ? { description: descriptions[i] } : {}),
    }));
    const source = {
      version: 1,
      url: options.pageUrl,
      ...(options.render === "browser" ? { render: "browser" } : {}),
      itemSelector: item.selector,
      fields: fields.map((field, i) => ({
        name: names[i]!,
        read: field.read,
        ...(identity.includes(names[i]!) ? { required: true } : {}),
      })),
      identity:
        identity.length === 1 ? { kind: "source-key", field: identity[0] } : { kind: "composite", fields: identity },
      pagination,
      // A listing is wanted whole: as many pages as a run may read (a longer one fails its coverage check).
      ...(pagination.kind === "none" ? {} : { maxPages: 50 }),
    };
    const why = [
      `${group.description}; selected by ${item.selector}${item.exact ? "" : " (which also selects a few other elements)"}` +
        (item.generated ? " (a class name a build tool made: it may change when the site is redeployed)" : ""),
      `key: ${identity.join(" + ")}`,
      paginationWhy,
      ...(tree.complete
        ? []
        : [
            `the page has more than ${SUGGEST_MAX_ELEMENTS} elements: this was found among its first ${SUGGEST_MAX_ELEMENTS}, and the preview reads the whole page`,
          ]),
      ...(unmatched.length > 0 ? [`not found on the page: ${unmatched.join(", ")}`] : []),
    ].join("; ");
    candidates.push({ name: datasetName(tree, options.pageUrl, item.selector), columns, source, why: `${why}.` });
  }
  return candidates;
};
