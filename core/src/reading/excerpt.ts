import { utf8Size } from "../digest.js";
import type { Excerpt } from "../ports/document-parser.js";

/**
 * Text helpers every DocumentParser adapter shares, so jsdom and htmlparser2 give the same cell text
 * and the same evidence excerpts.
 */

/** Whitespace runs (including non-breaking spaces) collapsed to one space, ends trimmed. */
export const normalizeWhitespace = (text: string): string => text.replace(/[\s\u00a0]+/g, " ").trim();

/**
 * Text read from a page as every store keeps it and every parser gives it (decision 0041), by HTML's
 * own rules: U+0000 is dropped from text and becomes U+FFFD in an attribute's value, and a lone
 * surrogate (from a character reference a parser let through) becomes U+FFFD.
 */
export const wellFormedText = (text: string, nul: "text" | "attribute" = "text"): string =>
  text.isWellFormed() && !text.includes("\u0000")
    ? text
    : text.replaceAll("\u0000", nul === "text" ? "" : "\uFFFD").toWellFormed();

/** SPEC.md's evidence limit. */
export const EXCERPT_MAX_BYTES = 2048;

const encoder = new TextEncoder();
const decoder = new TextDecoder();
/** Reused by every excerpt: an excerpt is encoded into it, never allocated (one per item of a run). */
let scratch = new Uint8Array(EXCERPT_MAX_BYTES);

/** At most `maxBytes` UTF-8 bytes of `text`, cut at a character boundary, flagged when cut. */
export const utf8Excerpt = (text: string, maxBytes: number = EXCERPT_MAX_BYTES): Excerpt => {
  if (maxBytes < 0) return { text: "", truncated: true };
  // A UTF-16 unit is at most 3 UTF-8 bytes (a surrogate pair is 4 for two units): short text fits.
  if (text.length * 3 <= maxBytes) return { text, truncated: false };
  if (scratch.length < maxBytes) scratch = new Uint8Array(maxBytes);
  // encodeInto writes only whole characters: it stops at the last character boundary that fits.
  const { read, written } = encoder.encodeInto(text, scratch.subarray(0, maxBytes));
  if (read === text.length) return { text, truncated: false };
  return { text: decoder.decode(scratch.subarray(0, written)), truncated: true };
};

/**
 * An element's HTML as evidence (every parser's `excerpt`): a whitespace run holding a line break
 * right after a tag or right before one becomes one line break, since a page's indentation is often
 * half of a record's markup and says nothing. Text and attribute values keep their whitespace inside
 * them, so a value read from the page is still found in its excerpt as the page wrote it; markup
 * holding `<pre>` or `<textarea>`, whose whitespace is content, is left whole. Then cut like any excerpt.
 */
export const markupExcerpt = (markup: string, maxBytes: number = EXCERPT_MAX_BYTES): Excerpt =>
  utf8Excerpt(preformatted.test(markup) ? markup : markup.replace(indentation, "\n"), maxBytes);
const preformatted = /<(pre|textarea)\b/i;
// Not \s: a non-breaking space is the page's text.
const indentation = /(?<=>)[ \t\n\r\f]*\n[ \t\n\r\f]*|[ \t\n\r\f]*\n[ \t\n\r\f]*(?=<)/g;

/** The base URL of a document: its `<base href>` resolved against the page URL, else the page URL. */
export const documentBaseUrl = (pageUrl: string, baseHref: string | null): string => {
  if (baseHref === null || baseHref.trim() === "") return pageUrl;
  try {
    return new URL(baseHref.trim(), pageUrl).href;
  } catch {
    return pageUrl;
  }
};

/** Resolves a reference (href, src) against a base URL; null when it makes no valid URL. */
export const resolveReference = (baseUrl: string, reference: string): string | null => {
  const trimmed = reference.trim();
  if (trimmed === "") return null;
  try {
    return new URL(trimmed, baseUrl).href;
  } catch {
    return null;
  }
};

/**
 * Text bounded for an answer or a log line: at most `maxBytes` UTF-8 bytes, and when cut, a note of
 * the whole text's size. Error bodies and logs echo what a client sent through it (decision 0041), so
 * a megabyte value is named, never repeated.
 */
/** The whole size a text cut by boundedText had, or null when it was not cut. */
export const cutSize = (text: string): number | null => {
  const match = / … \(cut: (\d+) bytes in all\)$/.exec(text);
  return match ? Number(match[1]) : null;
};

export const boundedText = (text: string, maxBytes: number): string => {
  if (text.length * 3 <= maxBytes) return text;
  const size = utf8Size(text);
  if (size <= maxBytes) return text;
  return `${utf8Excerpt(text, Math.max(0, maxBytes - 48)).text} … (cut: ${size} bytes in all)`;
};
