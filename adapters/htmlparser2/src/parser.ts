import {
  DocumentParser,
  type DocumentElement,
  type DocumentParserService,
  documentBaseUrl,
  normalizeWhitespace,
  ParseFailed,
  resolveReference,
  utf8Excerpt,
} from "@gleaner/core";
import { selectAll, selectOne } from "css-select";
import render from "dom-serializer";
import { type AnyNode, type Document, type Element, isTag } from "domhandler";
import { getAttributeValue, textContent } from "domutils";
import { Effect, Layer } from "effect";
import { parseDocument } from "htmlparser2";

/**
 * css-select treats selectors as relative to the element they run on (its `relativeSelector`
 * default): "div p" inside a container only matches a div within that container, as with jsdom's
 * `:scope div p`.
 */
const wrapElement = (element: Element): DocumentElement => ({
  select: (selector) => selectAll<AnyNode, Element>(selector, element).map(wrapElement),
  text: () => normalizeWhitespace(textContent(element)),
  attribute: (name) => getAttributeValue(element, name.toLowerCase()) ?? null,
  excerpt: (maxBytes) => utf8Excerpt(render(element, { encodeEntities: "utf8" }), maxBytes),
});

const wrapDocument = (document: Document): DocumentElement => ({
  select: (selector) => selectAll<AnyNode, Element>(selector, document).map(wrapElement),
  text: () => normalizeWhitespace(textContent(document.children.filter(isTag))),
  attribute: () => null,
  excerpt: (maxBytes) => utf8Excerpt(render(document.children.filter(isTag), { encodeEntities: "utf8" }), maxBytes),
});

/** htmlparser2 builds a plain node tree: no scripts, no resources, nothing to close. */
export const parseWithHtmlparser2: DocumentParserService["parse"] = (html, url) =>
  Effect.try({
    try: () => {
      new URL(url); // a parser without a base URL could resolve no link
      const document = parseDocument(html, { decodeEntities: true });
      const base = selectOne<AnyNode, Element>("base[href]", document);
      const baseUrl = documentBaseUrl(url, base ? (getAttributeValue(base, "href") ?? null) : null);
      return {
        root: wrapDocument(document),
        baseUrl,
        resolveUrl: (reference: string) => resolveReference(baseUrl, reference),
        dispose: () => {},
      };
    },
    catch: (error) =>
      new ParseFailed({
        message: `htmlparser2 could not parse the page: ${error instanceof Error ? error.message : String(error)}`,
      }),
  });

export const Htmlparser2ParserLive: Layer.Layer<DocumentParser> = Layer.succeed(DocumentParser, {
  parse: parseWithHtmlparser2,
});
