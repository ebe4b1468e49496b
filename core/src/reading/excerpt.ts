import type { Excerpt } from "../ports/document-parser.js";

/**
 * Text helpers every DocumentParser adapter shares, so jsdom and htmlparser2 give the same cell text
 * and the same evidence excerpts.
 */

/** Whitespace runs (including non-breaking spaces) collapsed to one space, ends trimmed. */
export const normalizeWhitespace = (text: string): string => text.replace(/[\s\u00a0]+/g, " ").trim();

/** SPEC.md's evidence limit. */
export const EXCERPT_MAX_BYTES = 2048;

const encoder = new TextEncoder();

/** At most `maxBytes` UTF-8 bytes of `text`, cut at a character boundary, flagged when cut. */
export const utf8Excerpt = (text: string, maxBytes: number = EXCERPT_MAX_BYTES): Excerpt => {
  const bytes = encoder.encode(text);
  if (bytes.length <= maxBytes) return { text, truncated: false };
  let end = Math.max(0, maxBytes);
  // Back up over UTF-8 continuation bytes (10xxxxxx) so no character is split.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return { text: new TextDecoder().decode(bytes.subarray(0, end)), truncated: true };
};

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
