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
  /** Every element in document order, the document itself first. */
  readonly nodes: ReadonlyArray<PageNode>;
  readonly byTag: ReadonlyMap<string, ReadonlyArray<PageNode>>;
  readonly byClass: ReadonlyMap<string, ReadonlyArray<PageNode>>;
  /** Whitespace-normalised textContent, as a parser's `text()` gives it (remembered once asked). */
  readonly text: (node: PageNode) => string;
  /** The length of the text a reader sees: textContent without scripts, styles and templates. */
  readonly visibleLength: (node: PageNode) => number;
}

const invisible = new Set(["script", "style", "noscript", "template"]);

const push = <K, V>(map: Map<K, V[]>, key: K, value: V) => {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
};

/** Builds the tree without recursion, so a page nested as deep as the document limits allow is fine. */
export const pageTree = (outline: OutlineElement): PageTree => {
  const make = (element: OutlineElement, parent: PageNode | null): PageNode => ({
    tag: element.tag,
    attributes: element.attributes,
    classes: [...new Set((element.attributes.class ?? "").split(/\s+/).filter((c) => c !== ""))],
    parent,
    children: [],
    content: [],
    order: 0,
    depth: parent ? parent.depth + 1 : 0,
  });
  const root = make(outline, null);
  // First pass: every element made with its content, breadth-wise from a work list.
  const work: Array<[OutlineElement, PageNode]> = [[outline, root]];
  while (work.length > 0) {
    const [element, node] = work.pop()!;
    for (const child of element.children) {
      if (typeof child === "string") {
        (node.content as Array<PageNode | string>).push(child);
        continue;
      }
      const made = make(child, node);
      node.children.push(made);
      (node.content as Array<PageNode | string>).push(made);
      work.push([child, made]);
    }
  }
  // Second pass, pre-order: document order, and the indexes in that order.
  const nodes: PageNode[] = [];
  const byTag = new Map<string, PageNode[]>();
  const byClass = new Map<string, PageNode[]>();
  const walk: PageNode[] = [root];
  while (walk.length > 0) {
    const node = walk.pop()!;
    (node as { order: number }).order = nodes.length;
    nodes.push(node);
    push(byTag, node.tag, node);
    for (const c of node.classes) push(byClass, c, node);
    for (let i = node.children.length - 1; i >= 0; i--) walk.push(node.children[i]!);
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
  const lengths = new Map<PageNode, number>();
  const visibleLength = (node: PageNode): number => {
    let known = lengths.get(node);
    if (known === undefined) {
      known = 0;
      const stack: Array<PageNode | string> = [node];
      while (stack.length > 0) {
        const item = stack.pop()!;
        if (typeof item === "string") known += item.replace(/[\s\u00a0]+/g, "").length;
        else if (!invisible.has(item.tag)) for (const part of item.content) stack.push(part);
      }
      lengths.set(node, known);
    }
    return known;
  };
  return { root, nodes, byTag, byClass, text, visibleLength };
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
