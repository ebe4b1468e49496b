import { selectAll, selectFirst } from "./match.js";
import type { PageNode, PageTree } from "./page-tree.js";

/**
 * Selector parts a suggestion may use: tags, classes and attributes that look written by a person
 * (stable across page loads and redesign-free edits), never positions, which SPEC.md's CSS leaves out.
 */
const identifier = /^-?[_a-zA-Z][_a-zA-Z0-9-]*$/;
/** Classes that say an element's state, not what it is. */
const stateClasses = new Set(
  "active selected current odd even first last alt hover focus open closed hidden visible show in is-active is-selected lazy lazyload lazyloaded loaded js-active".split(
    " ",
  ),
);

/** A class name a build tool made (css-1x2y3z, sc-bdVaJa, _3fG2x): it changes with the next deploy. */
const generated = (name: string): boolean =>
  /^(?:css|sc|jsx|emotion|styled|svelte|astro|tw)-/i.test(name) ||
  (/\d/.test(name) && /[a-z]/.test(name) && /[A-Z]/.test(name)) ||
  name.split(/[-_]/).some((part) => part.length >= 5 && /\d.*\d/.test(part) && /[a-z]/i.test(part));

/** Grid and utility classes (Bootstrap, Tailwind, Foundation): stable, but they say where, not what. */
const layoutClass =
  /^(?:col|row|span|grid|cell|offset|pull|push|float|clearfix|container|d|flex|w|h|p|m|px|py|pt|pb|pl|pr|mx|my|mt|mb|ml|mr|gap|g|text|font|bg|border|rounded|shadow|small|medium|large|sm|md|lg|xl|columns?)(?:$|-)/i;

export const isLayoutClass = (name: string): boolean => layoutClass.test(name);

/** A class a selector can name without escaping. */
export const isClassName = (name: string): boolean => identifier.test(name);

export const isStableClass = (name: string): boolean =>
  identifier.test(name) && !generated(name) && !stateClasses.has(name.toLowerCase());

/** Attributes whose value names what an element is (not where it points or what it shows). */
const namingAttributes = [
  "itemprop",
  "itemtype",
  "role",
  "data-testid",
  "data-test",
  "data-type",
  "data-component-type",
  "data-role",
  "type",
  "rel",
];

const quoted = (value: string) => `"${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;

const stableValue = (value: string) =>
  value.length > 0 && value.length <= 80 && !/[\n\r]/.test(value) && !generated(value);

/**
 * Simple selectors (one compound each) that every node of `nodes` matches, best first: a class or
 * two, a naming attribute, then the bare tag. Classes rarer on the page come first.
 */
export const commonPieces = (tree: PageTree, nodes: ReadonlyArray<PageNode>, generatedToo = false): string[] => {
  const first = nodes[0];
  if (!first || nodes.some((n) => n.tag !== first.tag) || !identifier.test(first.tag)) return [];
  const tag = first.tag;
  const usable = (c: string) =>
    generatedToo ? identifier.test(c) && !stateClasses.has(c.toLowerCase()) : isStableClass(c);
  const classes = first.classes
    .filter((c) => usable(c) && nodes.every((n) => n.classes.includes(c)))
    .sort(
      (a, b) =>
        Number(isLayoutClass(a)) - Number(isLayoutClass(b)) ||
        (tree.byClass.get(a)?.length ?? 0) - (tree.byClass.get(b)?.length ?? 0),
    );
  const pieces = classes.map((c) => `${tag}.${c}`);
  if (classes.length >= 2) pieces.push(`${tag}.${classes[0]}.${classes[1]}`);
  for (const name of namingAttributes) {
    const value = first.attributes[name];
    if (value !== undefined && stableValue(value) && nodes.every((n) => n.attributes[name] === value)) {
      pieces.push(`${tag}[${name}=${quoted(value)}]`);
    }
  }
  // Old markup names nothing; its layout attributes (bgcolor, colspan, valign) are then all there is.
  const named = new Set([
    "class",
    "id",
    "style",
    "href",
    "src",
    "alt",
    "title",
    "value",
    "name",
    "content",
    ...namingAttributes,
  ]);
  for (const [name, value] of Object.entries(first.attributes)) {
    if (named.has(name) || name.startsWith("on") || !/^[a-z][a-z-]*$/.test(name) || value.length > 40) continue;
    if (nodes.every((n) => n.attributes[name] === value)) pieces.push(`${tag}[${name}=${quoted(value)}]`);
  }
  const id = first.attributes.id;
  if (nodes.length === 1 && id !== undefined && identifier.test(id) && !generated(id) && !/\d{3,}/.test(id)) {
    pieces.unshift(`#${id}`);
  }
  pieces.push(tag);
  return pieces;
};

const sameNodes = (a: ReadonlyArray<PageNode>, b: ReadonlyArray<PageNode>) =>
  a.length === b.length && a.every((node, i) => node === b[i]);

/** The nodes' ancestors `levels` up, when every node has one; the same ancestor may repeat. */
const ancestorsAt = (nodes: ReadonlyArray<PageNode>, levels: number): PageNode[] | null => {
  const out: PageNode[] = [];
  for (const node of nodes) {
    let p: PageNode | null = node;
    for (let i = 0; i < levels && p; i++) p = p.parent;
    if (!p || p.tag === "#document") return null;
    out.push(p);
  }
  return [...new Set(out)];
};

export interface ItemSelector {
  readonly selector: string;
  /** What it selects on the page (the records, exactly, unless `exact` is false). */
  readonly matches: ReadonlyArray<PageNode>;
  readonly exact: boolean;
  /** It names a class a build tool made (nothing else selects the records exactly). */
  readonly generated: boolean;
}

/**
 * The simplest selector in the supported CSS that selects exactly `members` on the page: the members'
 * own class or attribute, then with their parent (`>`) or an ancestor (descendant) for context. When
 * none is exact, the closest superset that is mostly members (a table's header row, say), or null.
 */
export const itemSelectorFor = (tree: PageTree, members: ReadonlyArray<PageNode>): ItemSelector | null => {
  const written = itemSelectorTried(tree, members, false);
  if (written?.exact) return written;
  const made = itemSelectorTried(tree, members, true);
  return made?.exact ? { ...made, generated: true } : written;
};

const itemSelectorTried = (
  tree: PageTree,
  members: ReadonlyArray<PageNode>,
  generatedToo: boolean,
): ItemSelector | null => {
  const own = commonPieces(tree, members, generatedToo).slice(0, 4);
  const tries: string[] = [...own];
  const parents = ancestorsAt(members, 1);
  const parentPieces = parents ? commonPieces(tree, parents).slice(0, 3) : [];
  for (const base of own) for (const parent of parentPieces) tries.push(`${parent} > ${base}`);
  for (let level = 2; level <= 5; level++) {
    const ancestors = ancestorsAt(members, level);
    if (!ancestors) break;
    const pieces = commonPieces(tree, ancestors).filter((p) => p.includes(".") || p.includes("#") || p.includes("["));
    for (const piece of pieces.slice(0, 2)) {
      for (const base of own.slice(0, 2)) tries.push(`${piece} ${base}`);
      for (const parent of parentPieces.slice(0, 1)) tries.push(`${piece} ${parent} > ${own[0]}`);
    }
  }
  let closest: ItemSelector | null = null;
  let closestPrecision = 0;
  const wanted = new Set(members);
  for (const selector of tries) {
    const matches = selectAll(tree, tree.root, selector);
    if (sameNodes(matches, members)) return { selector, matches, exact: true, generated: false };
    const hits = matches.filter((m) => wanted.has(m)).length;
    const precision = matches.length === 0 ? 0 : hits / matches.length;
    if (hits === members.length && precision >= 0.85 && precision > closestPrecision) {
      closest = { selector, matches, exact: false, generated: false };
      closestPrecision = precision;
    }
  }
  return closest;
};

/**
 * A selector that, asked on each record, finds that record's `targets` element first (`first()` is
 * what a field reads), and finds nothing in records without one. Null when none of the tried ones do.
 */
export const fieldSelectorFor = (
  tree: PageTree,
  records: ReadonlyArray<PageNode>,
  targets: ReadonlyArray<PageNode | null>,
): string | null => {
  const present = targets.filter((t): t is PageNode => t !== null);
  const own = commonPieces(tree, present).slice(0, 3);
  const tries: string[] = [...own];
  const recordSet = new Set(records);
  const parents = present.map((t) => t.parent).filter((p): p is PageNode => p !== null && !recordSet.has(p));
  if (parents.length === present.length) {
    for (const parent of commonPieces(tree, parents).slice(0, 2))
      for (const base of own) tries.push(`${parent} > ${base}`);
  }
  const holds = (selector: string) =>
    records.every((record, i) => selectFirst(tree, record, selector) === (targets[i] ?? null));
  return tries.find(holds) ?? null;
};

/** A selector that finds `target` first in the whole document (a pagination link). */
export const documentSelectorFor = (tree: PageTree, target: PageNode): string | null => {
  const own = commonPieces(tree, [target]);
  const tries = [...own];
  let ancestor = target.parent;
  for (let level = 1; level <= 3 && ancestor && ancestor.tag !== "#document"; level++, ancestor = ancestor.parent) {
    const pieces = commonPieces(tree, [ancestor]).filter((p) => p.includes(".") || p.includes("#") || p.includes("["));
    for (const piece of pieces.slice(0, 2)) {
      tries.push(level === 1 ? `${piece} > ${own[own.length - 1]}` : `${piece} ${own[own.length - 1]}`);
      if (own.length > 1) tries.push(`${piece} ${own[0]}`);
    }
  }
  return tries.find((selector) => selectFirst(tree, tree.root, selector) === target) ?? null;
};
