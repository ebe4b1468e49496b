import {
  DocumentParser,
  type DocumentElement,
  type DocumentParserService,
  type OutlineElement,
  documentBaseUrl,
  DocumentBudget,
  type DocumentLimit,
  documentLimitMessage,
  normalizeWhitespace,
  ParseFailed,
  resolveReference,
  markupExcerpt,
} from "@gleaner/core";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import { Parser } from "htmlparser2";
import { JSDOM, VirtualConsole } from "jsdom";

const wrapFound = (element: Element | null): DocumentElement | null => (element ? wrapElement(element) : null);

/**
 * Wraps a jsdom element. `select` scopes the selector to the element's descendants with `:scope`, so
 * "div p" inside a container never matches through an ancestor outside it (the same meaning the
 * htmlparser2 adapter gives it).
 */
const wrapElement = (element: Element): DocumentElement => ({
  select: (selector) => Array.from(element.querySelectorAll(`:scope ${selector}`), wrapElement),
  first: (selector) => wrapFound(element.querySelector(`:scope ${selector}`)),
  text: () => normalizeWhitespace(element.textContent ?? ""),
  attribute: (name) => element.getAttribute(name),
  excerpt: (maxBytes) => markupExcerpt(element.outerHTML, maxBytes),
});

const wrapDocument = (document: Document): DocumentElement => ({
  select: (selector) => Array.from(document.querySelectorAll(selector), wrapElement),
  first: (selector) => wrapFound(document.querySelector(selector)),
  text: () => normalizeWhitespace(document.documentElement?.textContent ?? ""),
  attribute: () => null,
  excerpt: (maxBytes) => markupExcerpt(document.documentElement?.outerHTML ?? "", maxBytes),
});

/** The plain outline of a node's content (ports/document-parser.ts): elements and text, no comments. */
const outlineOf = (node: Node, tag: string, attributes: Record<string, string>): OutlineElement => ({
  tag,
  attributes,
  // A <template>'s content is a separate fragment in the DOM, so its childNodes are already empty.
  children: Array.from(node.childNodes).flatMap((child): Array<OutlineElement | string> => {
    if (child.nodeType === 3) return [(child as Text).data];
    if (child.nodeType !== 1) return [];
    const element = child as Element;
    const attrs: Record<string, string> = {};
    for (const attribute of Array.from(element.attributes)) attrs[attribute.name] = attribute.value;
    return [outlineOf(element, element.localName.toLowerCase(), attrs)];
  }),
});

/**
 * The first of core's document limits the page exceeds, or null. jsdom (parse5) takes minutes on a
 * page nested 200,000 deep, so the check runs before it, on htmlparser2's tokenizer: a pass that
 * builds nothing and stops at the first element past a limit.
 */
const overLimits = (html: string): DocumentLimit | null => {
  const budget = new DocumentBudget();
  let depth = 0;
  let over: DocumentLimit | null = null;
  const parser = new Parser({
    onopentag: () => {
      depth++;
      if (over) return;
      over = budget.open(depth);
      if (over) parser.pause();
    },
    onclosetag: () => {
      depth--;
    },
  });
  parser.end(html);
  return over;
};

class OverLimits extends Error {
  constructor(readonly limit: DocumentLimit) {
    super(limit);
  }
}

/**
 * Scripts never run and no subresource (images, stylesheets, frames) is fetched: jsdom's defaults,
 * kept explicit by not passing `runScripts` or `resources`. The virtual console drops jsdom's CSS and
 * script warnings, which say nothing about the page's data.
 */
export const parseWithJsdom: DocumentParserService["parse"] = (html, url) =>
  Effect.try({
    try: () => {
      const over = overLimits(html);
      if (over) throw new OverLimits(over);
      const dom = new JSDOM(html, { url, contentType: "text/html", virtualConsole: new VirtualConsole() });
      const { document } = dom.window;
      const baseUrl = documentBaseUrl(url, document.querySelector("base[href]")?.getAttribute("href") ?? null);
      return {
        root: wrapDocument(document),
        outline: () => outlineOf(document, "#document", {}),
        baseUrl,
        resolveUrl: (reference: string) => resolveReference(baseUrl, reference),
        // Windows hold their whole DOM until closed; the engine disposes each page after extraction.
        dispose: () => dom.window.close(),
      };
    },
    catch: (error) =>
      error instanceof OverLimits
        ? new ParseFailed({ message: documentLimitMessage(error.limit), reason: "limit_exceeded" })
        : new ParseFailed({
            message: `jsdom could not parse the page: ${error instanceof Error ? error.message : String(error)}`,
          }),
  });

export const JsdomParserLive: Layer.Layer<DocumentParser> = Layer.succeed(DocumentParser, { parse: parseWithJsdom });
