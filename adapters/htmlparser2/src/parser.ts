import {
  DocumentParser,
  type DocumentElement,
  DocumentBudget,
  type DocumentLimit,
  type DocumentLimits,
  type DocumentParserService,
  type Excerpt,
  type OutlineElement,
  documentBaseUrl,
  documentLimitMessage,
  documentLimits,
  normalizeWhitespace,
  ParseFailed,
  resolveReference,
  markupExcerpt,
} from "@gleaner/core";
import render from "dom-serializer";
import { type AnyNode, type Document, DomHandler, type Element, isTag, isText } from "domhandler";
import { getAttributeValue, textContent } from "domutils";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import { Parser } from "htmlparser2";
import { firstInDocument, firstInElement, selectInDocument, selectInElement } from "./selectors.js";

/**
 * Selectors run relative to the element (see selectors.ts), compiled once per process. A class, not an
 * object of closures: a run wraps every item and every cell's element (thousands), and its methods are
 * shared on the prototype instead of allocated per element.
 */
class WrappedElement implements DocumentElement {
  constructor(private readonly element: Element) {}
  select(selector: string): DocumentElement[] {
    return selectInElement(selector, this.element).map(wrapElement);
  }
  first(selector: string): DocumentElement | null {
    return wrapFound(firstInElement(selector, this.element));
  }
  text(): string {
    return normalizeWhitespace(textContent(this.element));
  }
  attribute(name: string): string | null {
    return getAttributeValue(this.element, name.toLowerCase()) ?? null;
  }
  excerpt(maxBytes: number): Excerpt {
    return markupExcerpt(render(this.element, { encodeEntities: "utf8" }), maxBytes);
  }
}

const wrapElement = (element: Element): DocumentElement => new WrappedElement(element);
const wrapFound = (element: Element | null): DocumentElement | null => (element ? wrapElement(element) : null);

const wrapDocument = (document: Document): DocumentElement => ({
  select: (selector) => selectInDocument(selector, document).map(wrapElement),
  first: (selector) => wrapFound(firstInDocument(selector, document)),
  text: () => normalizeWhitespace(textContent(document.children.filter(isTag))),
  attribute: () => null,
  excerpt: (maxBytes) => markupExcerpt(render(document.children.filter(isTag), { encodeEntities: "utf8" }), maxBytes),
});

/** The plain outline of a node's content (ports/document-parser.ts): elements and text, no comments. */
const outlineOf = (tag: string, attributes: Record<string, string>, nodes: ReadonlyArray<AnyNode>): OutlineElement => ({
  tag,
  attributes: { ...attributes },
  children:
    tag === "template"
      ? []
      : nodes.flatMap((node): Array<OutlineElement | string> => {
          if (isText(node)) return [node.data];
          return isTag(node) ? [outlineOf(node.name.toLowerCase(), node.attribs, node.children)] : [];
        }),
});

class OverLimits extends Error {
  constructor(readonly limit: DocumentLimit) {
    super(limit);
  }
}

/**
 * DomHandler that stops the parse at the first element past the limits: htmlparser2's own cost
 * grows with depth × size, so the check must run while parsing, not on the finished tree.
 * It also notes the document's `<base href>` as it opens, which a query would find only by walking
 * the whole tree again on every page.
 */
class BoundedDomHandler extends DomHandler {
  private readonly budget: DocumentBudget;
  /**
   * The element `base[href]` selects first in the document: elements open in document order, and
   * css-select's query does not look inside a `<template>`, so neither does this.
   */
  base: Element | null = null;

  constructor(limits: DocumentLimits) {
    super(undefined, { decodeEntities: true } as ConstructorParameters<typeof DomHandler>[1]);
    this.budget = new DocumentBudget(limits);
  }

  override onopentag(name: string, attribs: Record<string, string>): void {
    // tagStack holds the root document too: its length is the new element's depth.
    const over = this.budget.open(this.tagStack.length);
    if (over) throw new OverLimits(over);
    super.onopentag(name, attribs);
    if (name === "base" && this.base === null && Object.hasOwn(attribs, "href") && !this.inTemplate()) {
      this.base = this.tagStack[this.tagStack.length - 1] as Element;
    }
  }

  /** Is the element just opened inside a `<template>`? (Its own entry is the stack's last.) */
  private inTemplate(): boolean {
    for (let i = this.tagStack.length - 2; i > 0; i--)
      if ((this.tagStack[i] as Element).name === "template") return true;
    return false;
  }
}

const parseBounded = (html: string, limits: DocumentLimits): { document: Document; base: Element | null } => {
  const handler = new BoundedDomHandler(limits);
  new Parser(handler, { decodeEntities: true }).end(html);
  return { document: handler.root, base: handler.base };
};

/**
 * htmlparser2 builds a plain node tree: no scripts, no resources, nothing to close. A page over
 * `limits` fails with `limit_exceeded` as soon as the parse reaches the offending element.
 */
export const boundedHtmlparser2 =
  (limits: DocumentLimits): DocumentParserService["parse"] =>
  (html, url) =>
    Effect.try({
      try: () => {
        new URL(url); // a parser without a base URL could resolve no link
        const { document, base } = parseBounded(html, limits);
        const baseUrl = documentBaseUrl(url, base ? (getAttributeValue(base, "href") ?? null) : null);
        return {
          root: wrapDocument(document),
          outline: () => outlineOf("#document", {}, document.children),
          baseUrl,
          resolveUrl: (reference: string) => resolveReference(baseUrl, reference),
          dispose: () => {},
        };
      },
      catch: (error) =>
        error instanceof OverLimits
          ? new ParseFailed({ message: documentLimitMessage(error.limit, limits), reason: "limit_exceeded" })
          : new ParseFailed({
              message: `htmlparser2 could not parse the page: ${error instanceof Error ? error.message : String(error)}`,
            }),
    });

/** The parser with core's document limits (reading/document-limits.ts). */
export const parseWithHtmlparser2: DocumentParserService["parse"] = boundedHtmlparser2(documentLimits);

export const Htmlparser2ParserLive: Layer.Layer<DocumentParser> = Layer.succeed(DocumentParser, {
  parse: parseWithHtmlparser2,
});
