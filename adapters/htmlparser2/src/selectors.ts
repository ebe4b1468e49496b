import { _compileUnsafe, is, selectAll, selectOne } from "css-select";
import { parse, stringify } from "css-what";
import { type AnyNode, Element } from "domhandler";

/**
 * Selectors compiled once and reused for every page and item (css-what parsing and css-select
 * compilation were ~8% of a run when redone on each `select`). A recipe has a handful of selectors,
 * so the cache is small; it is bounded because recipes come from many tenants.
 */
const maxCached = 1_000;

/**
 * `_compileUnsafe` is what css-select's own `selectAll` compiles a string with: unlike `compile`, it
 * keeps the query's `shouldTestNextSiblings` (needed by relative "+ p" / "~ p" selectors).
 */
type Query = ReturnType<typeof _compileUnsafe<AnyNode, Element>>;

const remember = (cache: Map<string, Query>, selector: string, make: () => Query): Query => {
  let query = cache.get(selector);
  if (query === undefined) {
    query = make();
    if (cache.size >= maxCached) cache.delete(cache.keys().next().value as string);
    cache.set(selector, query);
    compiles++;
  }
  return query;
};

let compiles = 0;
/** How many selectors were compiled in this process so far (each one once while it stays cached). */
export const selectorCompiles = (): number => compiles;

const fromDocument = new Map<string, Query>();
/** Selects from the whole document (no scope: the selector is absolute). */
const documentQuery = (selector: string) => remember(fromDocument, selector, () => _compileUnsafe(selector));
export const selectInDocument = (selector: string, document: AnyNode): Element[] =>
  selectAll<AnyNode, Element>(documentQuery(selector), document);
export const firstInDocument = (selector: string, document: AnyNode): Element | null =>
  selectOne<AnyNode, Element>(documentQuery(selector), document);

/**
 * css-select treats a selector run on an element as relative to it (its `relativeSelector`
 * default): "div p" inside a container only matches a div within that container, as jsdom's
 * `:scope div p`. Compiled once against a one-element scope that each call points at its element
 * (css-select's `:scope` reads `context[0]` when it tests, the way its own `:has` reuses a query);
 * a selection runs synchronously to its end, so no two selections share the scope at once.
 */
const scope: AnyNode[] = [new Element("gleaner-scope", {}, [])];
// A scope with a parent is what css-select takes for an element (a parentless one for a document).
(scope[0] as Element).parent = new Element("gleaner-scope-parent", {}, [scope[0] as Element]);
const fromElement = new Map<string, Query>();
const elementQuery = (selector: string, element: Element): Query => {
  const query = remember(fromElement, selector, () => _compileUnsafe(selector, { context: scope }));
  scope[0] = element;
  return query;
};

/**
 * A query compiled against an array context lets the element itself stand for the selector's first
 * part ("article p" asked on an <article> matched its own paragraphs; jsdom's `:scope article p`
 * does not). That happens only when the element matches that first part, so only then is the
 * selector run uncompiled, with the element as its context, which css-select reads strictly.
 */
const fromFirstPart = new Map<string, Query | null>();
const firstPartQuery = (selector: string): Query | null => {
  if (fromFirstPart.has(selector)) return fromFirstPart.get(selector)!;
  // Each group's part before its first combinator; a group that starts with one ("> p") never lets
  // the element stand for anything.
  const parts = parse(selector).flatMap((tokens) => {
    const end = tokens.findIndex(
      (t) => t.type === "descendant" || t.type === "child" || t.type === "adjacent" || t.type === "sibling",
    );
    return end === 0 ? [] : [end < 0 ? tokens : tokens.slice(0, end)];
  });
  const query =
    parts.length === 0 ? null : _compileUnsafe<AnyNode, Element>(stringify(parts), { relativeSelector: false });
  if (fromFirstPart.size >= maxCached) fromFirstPart.delete(fromFirstPart.keys().next().value as string);
  fromFirstPart.set(selector, query);
  compiles++;
  return query;
};
const standsForFirstPart = (selector: string, element: Element): boolean => {
  const query = firstPartQuery(selector);
  return query !== null && is<AnyNode, Element>(element, query);
};

export const selectInElement = (selector: string, element: Element): Element[] =>
  standsForFirstPart(selector, element)
    ? selectAll<AnyNode, Element>(selector, element)
    : selectAll<AnyNode, Element>(elementQuery(selector, element), element);
/** The first of `selectInElement` (css-select's findOne walks in the same document order as findAll). */
export const firstInElement = (selector: string, element: Element): Element | null =>
  standsForFirstPart(selector, element)
    ? selectOne<AnyNode, Element>(selector, element)
    : selectOne<AnyNode, Element>(elementQuery(selector, element), element);
