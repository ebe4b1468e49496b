import { type AttributeSelector, parse, type Selector } from "css-what";
import type { PageNode, PageTree } from "./page-tree.js";

/**
 * Selectors of the supported CSS (rules/selector.ts) matched on a page tree, the way the parser
 * adapters match them: relative to the element they are asked on, whose ancestors never count.
 * Suggestions try many candidate selectors; each one offered is verified again by the real parser.
 */
interface Step {
  readonly compound: ReadonlyArray<Selector>;
  /** How this compound relates to the one before it (to its left). */
  readonly combinator: "child" | "descendant" | null;
}

const compiled = new Map<string, ReadonlyArray<Step> | null>();

const compile = (selector: string): ReadonlyArray<Step> | null => {
  if (compiled.has(selector)) return compiled.get(selector)!;
  let steps: Step[] | null = [];
  try {
    const groups = parse(selector);
    if (groups.length !== 1) steps = null;
    let compound: Selector[] = [];
    let combinator: Step["combinator"] = null;
    for (const token of groups[0] ?? []) {
      if (token.type === "child" || token.type === "descendant") {
        steps?.push({ compound, combinator });
        compound = [];
        combinator = token.type;
      } else if (token.type === "tag" || token.type === "attribute") compound.push(token);
      else steps = null;
    }
    steps?.push({ compound, combinator });
  } catch {
    steps = null;
  }
  // Suggestions make a few hundred selectors a page; the cache is cleared when it grows past that.
  if (compiled.size > 5000) compiled.clear();
  compiled.set(selector, steps);
  return steps;
};

const attributeMatches = (node: PageNode, token: AttributeSelector): boolean => {
  const value = node.attributes[token.name];
  if (value === undefined) return false;
  const fold = token.ignoreCase === true;
  const have = fold ? value.toLowerCase() : value;
  const want = fold ? token.value.toLowerCase() : token.value;
  switch (token.action) {
    case "exists":
      return true;
    case "equals":
      return have === want;
    case "element":
      return want !== "" && have.split(/\s+/).includes(want);
    case "start":
      return want !== "" && have.startsWith(want);
    case "end":
      return want !== "" && have.endsWith(want);
    case "any":
      return want !== "" && have.includes(want);
    case "hyphen":
      return have === want || have.startsWith(`${want}-`);
    default:
      return false;
  }
};

const compoundMatches = (node: PageNode, compound: ReadonlyArray<Selector>): boolean =>
  compound.every((token) =>
    token.type === "tag" ? node.tag === token.name : token.type === "attribute" && attributeMatches(node, token),
  );

/** Does `node` match the steps up to `index`, with every ancestor it needs strictly inside `scope`? */
const matchesAt = (node: PageNode, steps: ReadonlyArray<Step>, index: number, scope: PageNode): boolean => {
  const step = steps[index]!;
  if (!compoundMatches(node, step.compound)) return false;
  if (index === 0) return true;
  if (step.combinator === "child") {
    const parent = node.parent;
    return parent !== null && parent !== scope && matchesAt(parent, steps, index - 1, scope);
  }
  for (let p = node.parent; p !== null && p !== scope; p = p.parent) {
    if (matchesAt(p, steps, index - 1, scope)) return true;
  }
  return false;
};

/** The elements a rightmost compound can match, from the tree's indexes (the fewest to test). */
const candidates = (tree: PageTree, last: Step): ReadonlyArray<PageNode> => {
  let best: ReadonlyArray<PageNode> = tree.nodes;
  for (const token of last.compound) {
    const list =
      token.type === "tag"
        ? (tree.byTag.get(token.name) ?? [])
        : token.type === "attribute" && token.name === "class" && token.action === "element"
          ? (tree.byClass.get(token.value) ?? [])
          : null;
    if (list !== null && list.length < best.length) best = list;
  }
  return best;
};

/** The end of `scope`'s subtree in document order: every descendant's order is below it. */
const subtreeEnd = (scope: PageNode): number => {
  let last = scope;
  while (last.children.length > 0) last = last.children[last.children.length - 1]!;
  return last.order + 1;
};

/** Where `scope`'s descendants begin in a document-ordered list (lists from the tree's indexes are). */
const firstAfter = (list: ReadonlyArray<PageNode>, scope: PageNode): number => {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid]!.order <= scope.order) lo = mid + 1;
    else hi = mid;
  }
  return lo;
};

/** Descendants of `scope` matching `selector`, in document order (none for a selector outside the subset). */
export const selectAll = (tree: PageTree, scope: PageNode, selector: string): PageNode[] => {
  const steps = compile(selector);
  if (steps === null || steps.length === 0) return [];
  const end = subtreeEnd(scope);
  const list = candidates(tree, steps[steps.length - 1]!);
  const out: PageNode[] = [];
  for (let i = firstAfter(list, scope); i < list.length && list[i]!.order < end; i++) {
    if (matchesAt(list[i]!, steps, steps.length - 1, scope)) out.push(list[i]!);
  }
  return out;
};

/** The first of `selectAll`, found without collecting the rest. */
export const selectFirst = (tree: PageTree, scope: PageNode, selector: string): PageNode | null => {
  const steps = compile(selector);
  if (steps === null || steps.length === 0) return null;
  const end = subtreeEnd(scope);
  const list = candidates(tree, steps[steps.length - 1]!);
  for (let i = firstAfter(list, scope); i < list.length && list[i]!.order < end; i++) {
    if (matchesAt(list[i]!, steps, steps.length - 1, scope)) return list[i]!;
  }
  return null;
};
