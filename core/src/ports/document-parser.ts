import * as Context from "effect/Context";
import type * as Effect from "effect/Effect";
import * as Schema from "effect/Schema";

/** An excerpt of an element's markup, cut at a UTF-8 character boundary. */
export interface Excerpt {
  readonly text: string;
  readonly truncated: boolean;
}

/**
 * An element of a parsed document. Methods are synchronous: a parsed document is plain in-memory
 * data, and the engine reads thousands of cells per run.
 */
export interface DocumentElement {
  /** Descendants matching a selector from the validated subset, in document order. */
  readonly select: (selector: string) => ReadonlyArray<DocumentElement>;
  /**
   * The first of `select(selector)`, or null: what a cell reads. The search stops at the first match
   * instead of collecting every match in the item.
   */
  readonly first: (selector: string) => DocumentElement | null;
  /** textContent with whitespace runs collapsed to one space and trimmed. */
  readonly text: () => string;
  readonly attribute: (name: string) => string | null;
  /** The element's outer HTML, at most `maxBytes` UTF-8 bytes. */
  readonly excerpt: (maxBytes: number) => Excerpt;
}

/**
 * A plain copy of an element and what it holds, in document order: elements and text (entities
 * decoded, comments left out, a `<template>` empty). What suggestions read a page's structure from;
 * core matches its own selectors on it and verifies every one with `select` before offering it.
 */
export interface OutlineElement {
  /** Lower-case tag name; "#document" for the document itself. */
  readonly tag: string;
  readonly attributes: Readonly<Record<string, string>>;
  readonly children: ReadonlyArray<OutlineElement | string>;
}

export interface ParsedDocument {
  readonly root: DocumentElement;
  /** The whole document as plain data (built when asked; a run never asks). */
  readonly outline: () => OutlineElement;
  /** The URL relative references resolve against (the page's final URL, or its `<base href>`). */
  readonly baseUrl: string;
  /** Resolves a relative reference against `baseUrl`; null when it is not a valid URL. */
  readonly resolveUrl: (reference: string) => string | null;
  /** Frees the document (jsdom windows hold memory until closed). */
  readonly dispose: () => void;
}

/**
 * The page could not be parsed. `reason` is the read failure it becomes: `limit_exceeded` for a
 * page over reading/document-limits.ts, else `invalid_content`.
 */
export class ParseFailed extends Schema.TaggedError<ParseFailed>()("ParseFailed", {
  message: Schema.String,
  reason: Schema.optionalWith(Schema.Literal("invalid_content", "limit_exceeded"), {
    default: () => "invalid_content" as const,
  }),
}) {}

export interface DocumentParserService {
  readonly parse: (html: string, url: string) => Effect.Effect<ParsedDocument, ParseFailed>;
}

/** Turns HTML into a queryable document. Adapters: @gleaner/jsdom (and a faster htmlparser2 one). */
export class DocumentParser extends Context.Tag("@gleaner/core/DocumentParser")<
  DocumentParser,
  DocumentParserService
>() {}
