import type { OutlineElement } from "../ports/document-parser.js";
import { normalizeWhitespace } from "../reading/excerpt.js";

/** An element of a page as suggestions read it: the outline with parents, order and text at hand. */
export interface PageNode {
  readonly tag: string;
  readonly attributes: Readonly<Record<string, string>>;
  readonly classes: ReadonlyArray<string>;
  readonly parent: PageNode | null;
  /** Element children, in document order. */
  readonly children: PageNode[];
  /** Elements and text, in document order (what text() is made of). */
  readonly content: ReadonlyArray<PageNode | string>;
  /** Position in document order (the document itself is 0). */
  readonly order: number;
  readonly depth: number;
}

export interface PageTree {
  readonly root: PageNode;
  /** Every element examined in document order, the document itself first. */
  readonly nodes: ReadonlyArray<PageNode>;
  /** Were all the page's elements examined (false: only the first SUGGEST_MAX_ELEMENTS)? */
  readonly complete: boolean;
  readonly byTag: ReadonlyMap<string, ReadonlyArray<PageNode>>;
  readonly byClass: ReadonlyMap<string, ReadonlyArray<PageNode>>;
  /** Whitespace-normalised textContent, as a parser's `text()` gives it (remembered once asked). */
  readonly text: (node: PageNode) => string;
  /** Does the node hold any text (`text(node) !== ""`, without making the text)? */
  readonly hasText: (node: PageNode) => boolean;
  /** The length of the text a reader sees: textContent without scripts, styles and templates. */
  readonly visibleLength: (node: PageNode) => number;
}

const invisible = new Set(["script", "style", "noscript", "template"]);

const push = <K, V>(map: Map<K, V[]>, key: K, value: V) => {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
};

/**
 * How many elements of a page suggestions examine: the first ones in document order. Finding records
 * runs on the thread that serves the API and costs several passes over every element examined; this
 * is 15 times the largest listing page of the suggest corpus and keeps one suggestion's work on a
 * page at the document limits (100,000 elements) well under a second. Decision 0039.
 */
export const SUGGEST_MAX_ELEMENTS = 20_000;

/** The number of elements in each element's subtree (itself included), counted without recursion. */
const subtreeSizes = (outline: OutlineElement): Map<OutlineElement, number> => {
  const sizes = new Map<OutlineElement, number>();
  const stack: Array<[OutlineElement, boolean]> = [[outline, false]];
  while (stack.length > 0) {
    const [element, counted] = stack.pop()!;
    if (counted) {
      let size = 1;
      for (const child of element.children) if (typeof child !== "string") size += sizes.get(child)!;
      sizes.set(element, size);
      continue;
    }
    stack.push([element, true]);
    for (const child of element.children) if (typeof child !== "string") stack.push([child, false]);
  }
  return sizes;
};

/**
 * Builds the tree of the page's first `maxElements` elements (the document itself counts) in one
 * pre-order walk without recursion, so a page nested as deep as the document limits allow is fine.
 * A part of the page is examined whole or not at all, unless it alone is larger than the budget (a
 * page's body, a list of 50,000 items): then its first parts are. So no record is ever examined in part.
 */
export const pageTree = (outline: OutlineElement, maxElements: number = SUGGEST_MAX_ELEMENTS): PageTree => {
  const nodes: PageNode[] = [];
  const byTag = new Map<string, PageNode[]>();
  const byClass = new Map<string, PageNode[]>();
  const make = (element: OutlineElement, parent: PageNode | null): PageNode => {
    const classes = element.attributes.class;
    const node: PageNode = {
      tag: element.tag,
      attributes: element.attributes,
      classes: classes === undefined ? [] : [...new Set(classes.split(/\s+/).filter((c) => c !== ""))],
      parent,
      children: [],
      content: [],
      order: nodes.length,
      depth: parent ? parent.depth + 1 : 0,
    };
    nodes.push(node);
    push(byTag, node.tag, node);
    for (const c of node.classes) push(byClass, c, node);
    return node;
  };
  const root = make(outline, null);
  const sizes = subtreeSizes(outline);
  const complete = sizes.get(outline)! <= maxElements;
  // Each element is made when its turn in document order comes, so the budget keeps the page's first ones.
  const work: Array<[OutlineElement | string, PageNode]> = [];
  const pushChildren = (element: OutlineElement, node: PageNode) => {
    for (let i = element.children.length - 1; i >= 0; i--) work.push([element.children[i]!, node]);
  };
  pushChildren(outline, root);
  while (work.length > 0) {
    const [item, parent] = work.pop()!;
    if (typeof item === "string") {
      (parent.content as Array<PageNode | string>).push(item);
      continue;
    }
    const size = sizes.get(item)!;
    const room = maxElements - nodes.length;
    if (room <= 0 || (size > room && size <= maxElements)) continue;
    const made = make(item, parent);
    parent.children.push(made);
    (parent.content as Array<PageNode | string>).push(made);
    pushChildren(item, made);
  }
  const texts = new Map<PageNode, string>();
  const raw = (node: PageNode): string => {
    const parts: string[] = [];
    const stack: Array<PageNode | string> = [node];
    while (stack.length > 0) {
      const item = stack.pop()!;
      if (typeof item === "string") parts.push(item);
      else for (let i = item.content.length - 1; i >= 0; i--) stack.push(item.content[i]!);
    }
    return parts.join("");
  };
  const text = (node: PageNode): string => {
    let known = texts.get(node);
    if (known === undefined) {
      known = normalizeWhitespace(raw(node));
      texts.set(node, known);
    }
    return known;
  };
  // Lengths and whether there is text, children before parents (reverse document order): one pass, not one per node asked.
  const lengths = new Array<number>(nodes.length).fill(0);
  const texted = new Array<boolean>(nodes.length).fill(false);
  for (let i = nodes.length - 1; i >= 0; i--) {
    const node = nodes[i]!;
    let length = 0;
    let any = false;
    for (const part of node.content) {
      if (typeof part === "string") {
        length += part.replace(/[\s\u00a0]+/g, "").length;
        any ||= /[^\s\u00a0]/.test(part);
      } else {
        length += lengths[part.order]!;
        any ||= texted[part.order]!;
      }
    }
    lengths[i] = invisible.has(node.tag) ? 0 : length;
    texted[i] = any;
  }
  const visibleLength = (node: PageNode): number => lengths[node.order]!;
  const hasText = (node: PageNode): boolean => texted[node.order]!;
  return { root, nodes, complete, byTag, byClass, text, hasText, visibleLength };
};

/** Is `node` inside `ancestor` (strictly)? */
export const isInside = (node: PageNode, ancestor: PageNode): boolean => {
  for (let p = node.parent; p !== null; p = p.parent) if (p === ancestor) return true;
  return false;
};

/** Is `node` inside any of `ancestors` (strictly)? One walk up, however many ancestors there are. */
export const insideAny = (node: PageNode, ancestors: ReadonlySet<PageNode>): boolean => {
  for (let p = node.parent; p !== null; p = p.parent) if (ancestors.has(p)) return true;
  return false;
};
