import { lineBreak, MainTextReader, type MainTextReaderService, ParseFailed } from "@gleaner/core";
import { Readability } from "@mozilla/readability";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import { JSDOM, VirtualConsole } from "jsdom";

/** Where a heading starts in `structuredText`'s output, before `tidy` writes its mark: U+0001 and its level. */
const headingStart = "\u0001";
const headingMark = new RegExp(`^${headingStart}([1-6])\\s*`);

/**
 * Lines kept (blocks), a `<br>` inside a block kept as U+2028, whitespace otherwise collapsed, empty
 * lines dropped; a heading line marked by "#" per level and a space, and a line of the page's own
 * that starts with "#" escaped as "\#", so only headings read as headings (MainText's format).
 */
const tidy = (text: string): string =>
  text
    .split(/\n+/)
    .map((line) =>
      line
        .replace(/[\s\u00a0]+/g, (run) => (run.includes(lineBreak) ? lineBreak : " "))
        .trim()
        .replace(/^#/, "\\#")
        .replace(headingMark, (_, level: string) => `${"#".repeat(Number(level))} `),
    )
    .filter((line) => line !== "" && !/^#+ $/.test(line))
    .join("\n");

/** Elements that stand on lines of their own: a block's text never runs into the next one's. */
const blocks = new Set(
  "ADDRESS ARTICLE ASIDE BLOCKQUOTE DETAILS DIV DL FIELDSET FIGCAPTION FIGURE FORM H1 H2 H3 H4 H5 H6 HR LI MAIN OL P PRE SECTION SUMMARY TABLE TBODY TFOOT THEAD TR UL CAPTION".split(
    " ",
  ),
);
const cells = new Set(["TD", "TH"]);
const headings = new Set(["H1", "H2", "H3", "H4", "H5", "H6"]);
const unread = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE"]);

/**
 * An element's text with its structure kept: blocks on lines of their own, a table row's cells and a
 * definition list's term with its descriptions on one line separated by " | ", `<br>` a line break
 * within its block (U+2028), headings marked with their level. Minified markup otherwise reads
 * "Founded1972" where the page shows a table. Walked without recursion (a page may nest deeply).
 */
export const structuredText = (root: Element): string => {
  const out: string[] = [];
  const stack: Array<Node | "end-block"> = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node === "end-block") {
      out.push("\n");
      continue;
    }
    if (node.nodeType === 3) {
      // HTML's whitespace: a line break in the source inside a paragraph is a space on the page.
      out.push((node.textContent ?? "").replace(/[\t\n\r\f ]+/g, " ").replaceAll(headingStart, ""));
      continue;
    }
    if (node.nodeType !== 1) continue;
    const tag = (node as Element).tagName;
    if (unread.has(tag)) continue;
    if (tag === "BR") {
      out.push(lineBreak);
      continue;
    }
    if (cells.has(tag) && (node as Element).previousElementSibling) out.push(" | ");
    // A term and its descriptions are one line, like a table row: "Lantern House | Opened 1958 in Hull".
    if (tag === "DT") out.push("\n");
    if (tag === "DD") out.push((node as Element).previousElementSibling ? " | " : "\n");
    if (blocks.has(tag)) {
      out.push(headings.has(tag) ? `\n${headingStart}${tag[1]}` : "\n");
      stack.push("end-block");
    }
    const children = node.childNodes;
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  return out.join("");
};

/** The language a page declares: `<html lang>`, else its `<meta http-equiv="content-language">` (the first one listed). */
const languageOf = (document: Document): string | null => {
  const declared =
    document.documentElement.getAttribute("lang") ||
    document.querySelector('meta[http-equiv="content-language" i]')?.getAttribute("content") ||
    "";
  return declared.split(",")[0]?.trim() || null;
};

/**
 * How much of the page's text (without scripts, navigation, page header and footer) Readability's
 * article must keep to be used. Readability is tuned for articles: on listing and data pages it keeps a
 * fragment (a search result page's first lines, a file index's header, or the footer of a page of fact
 * tables), and a fact not in the text cannot be grounded. Over bench/suggest's real listing pages, the
 * five articles that lost records kept at most 69% of the page's text; those keeping 77% or more lost none.
 */
export const ARTICLE_MIN_SHARE = 0.75;

const chrome = "script, style, noscript, template, nav, header, footer";
/** Scripts, styles, navigation, and the page's header and footer: an article's or main's own header stays. */
const isChrome = (el: Element) => !/^(HEADER|FOOTER)$/.test(el.tagName) || el.closest("article, main") === null;

/**
 * A page's main content for a language model: Mozilla Readability (Firefox Reader View) on jsdom
 * drops scripts, navigation and boilerplate, and the text keeps the page's blocks and table cells
 * apart (`structuredText`). Where the article keeps less than `ARTICLE_MIN_SHARE` of the page's own
 * text (its lines found there), or there is none, the page's text is read instead: its body without
 * scripts, styles, navigation, and the header and footer of the page (an article's own stay).
 */
export const readMainText: MainTextReaderService["read"] = (html, url) =>
  Effect.try({
    try: () => {
      const dom = new JSDOM(html, { url, virtualConsole: new VirtualConsole() });
      try {
        const document = dom.window.document;
        const lang = languageOf(document);
        const article = new Readability(document.cloneNode(true) as Document, { charThreshold: 0 }).parse();
        for (const el of document.querySelectorAll(chrome)) if (isChrome(el)) el.remove();
        const pageText = tidy(document.body ? structuredText(document.body) : "");
        if (article?.content && article.textContent?.trim()) {
          const holder = document.createElement("div");
          holder.innerHTML = article.content;
          const articleText = tidy(structuredText(holder));
          const pageLines = new Set(pageText.split("\n"));
          const kept = articleText.split("\n").reduce((n, line) => n + (pageLines.has(line) ? line.length : 0), 0);
          if (kept >= ARTICLE_MIN_SHARE * pageText.length) {
            return { title: article.title?.trim() || null, text: articleText, lang };
          }
        }
        return { title: document.title.trim() || null, text: pageText, lang };
      } finally {
        dom.window.close();
      }
    },
    catch: (error) => new ParseFailed({ message: `The page could not be cleaned: ${String(error)}` }),
  });

export const JsdomMainTextLive = Layer.succeed(MainTextReader, { read: readMainText });
