import { MainTextReader, type MainTextReaderService, ParseFailed } from "@gleaner/core";
import { Readability } from "@mozilla/readability";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import { JSDOM, VirtualConsole } from "jsdom";

/** Paragraph breaks kept, whitespace inside lines collapsed, empty lines dropped. */
const tidy = (text: string): string =>
  text
    .split(/\n+/)
    .map((line) => line.replace(/[\s\u00a0]+/g, " ").trim())
    .filter((line) => line !== "")
    .join("\n");

/**
 * A page's main content for a language model: Mozilla Readability (Firefox Reader View) on jsdom
 * drops scripts, navigation and boilerplate. A page Readability finds no article in falls back to
 * its body text without scripts, styles, navigation, header and footer.
 */
export const readMainText: MainTextReaderService["read"] = (html, url) =>
  Effect.try({
    try: () => {
      const dom = new JSDOM(html, { url, virtualConsole: new VirtualConsole() });
      try {
        const document = dom.window.document;
        const article = new Readability(document.cloneNode(true) as Document, { charThreshold: 0 }).parse();
        if (article?.textContent && article.textContent.trim() !== "") {
          return { title: article.title?.trim() || null, text: tidy(article.textContent) };
        }
        for (const el of document.querySelectorAll("script, style, noscript, template, nav, header, footer"))
          el.remove();
        return { title: document.title.trim() || null, text: tidy(document.body?.textContent ?? "") };
      } finally {
        dom.window.close();
      }
    },
    catch: (error) => new ParseFailed({ message: `The page could not be cleaned: ${String(error)}` }),
  });

export const JsdomMainTextLive = Layer.succeed(MainTextReader, { read: readMainText });
