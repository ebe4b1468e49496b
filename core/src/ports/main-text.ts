import * as Context from "effect/Context";
import type * as Effect from "effect/Effect";
import type { ParseFailed } from "./document-parser.js";

/** A page's main content as plain text: scripts, navigation and boilerplate dropped. */
export interface MainText {
  readonly title: string | null;
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
