import * as Context from "effect/Context";
import type * as Effect from "effect/Effect";
import type { ParseFailed } from "./document-parser.js";

/** A line break within a block of a page's main text (a `<br>`): U+2028, Unicode's line separator. */
export const lineBreak = "\u2028";

/** A heading line of a page's main text: "#" once per level, a space, the heading ("## Lantern House"). */
export const headingLine = /^(#{1,6}) (.+)$/;

/**
 * A page's main content as plain text: scripts, navigation and boilerplate dropped, but never a fact of
 * the page's own content (a reader that finds only part of it reads the page's text instead).
 */
export interface MainText {
  readonly title: string | null;
  /**
   * One block (paragraph, list item, table row, heading) a line; a table row's cells joined by " | ";
   * a line break inside a block is `lineBreak`, so a block's lines stay one line; a heading is a
   * `headingLine`, and a line of the page's own that starts with "#" is written "\#".
   */
  readonly text: string;
  /** The page's language (`<html lang>`, else its content-language), when it says one: how it writes numbers. */
  readonly lang?: string | null;
}

export interface MainTextReaderService {
  readonly read: (html: string, url: string) => Effect.Effect<MainText, ParseFailed>;
}

/**
 * Cleans a page for a language model to read (research runs). Core holds no DOM library, so this is
 * a port. Adapter: @gleaner/jsdom (Mozilla Readability on jsdom).
 */
export class MainTextReader extends Context.Tag("@gleaner/core/MainTextReader")<
  MainTextReader,
  MainTextReaderService
>() {}
