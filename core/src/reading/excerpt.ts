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
