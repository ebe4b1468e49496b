import { parsedJson } from "./text-documents.js";

// What a process keeps of the content its runs' kept reads are made of (decision 0035): page bodies
// by digest, observation documents by id, page records by key. Each is immutable under its key
// (inserted once, never updated), so a kept copy is right for as long as it is kept, whatever other
// processes do. A re-run then reads only its page reads' small rows (~4 MB less from the server on
// the books site). Values are kept as the text the database holds; JSON is parsed once, on first use, unless the acceptance that wrote it
// handed over its value (the objects a memory store would keep, shared the same way).

export interface ContentCache {
  readonly enabled: boolean;
  /** The text kept under `key`, if any (a use makes it the most recent). */
  readonly text: (key: string) => string | undefined;
  /** The JSON value of the text kept under `key`, parsed on its first use and then shared. */
  readonly json: (key: string) => unknown;
  readonly has: (key: string) => boolean;
  /**
   * Keeps `text` under `key` (the least recently used make room; a text over the capacity is not
   * kept). `value`, when given, is the JSON value that text encodes, already in hand (the acceptance
   * that wrote it): it is shared as `json(key)` without parsing the text.
   */
  readonly keep: (key: string, text: string, value?: unknown) => void;
}

/** Whether `text` has no lone surrogate: only such a string is its UTF-8 read back (ES2024's isWellFormed). */
export const isWellFormed = (text: string): boolean => (text as unknown as { isWellFormed(): boolean }).isWellFormed();

export const bodyKey = (sha256: string) => `b:${sha256}`;
export const observationKey = (id: string) => `o:${id}`;
export const recordsKey = (key: string) => `r:${key}`;

interface Entry {
  readonly text: string;
  parsed?: { readonly value: unknown };
  size: number;
}

/**
 * A cache of at most `megabytes` (counted as a text's characters, twice over once it is parsed: a
 * rough measure of the heap it holds; 0 keeps nothing).
 */
export const makeContentCache = (megabytes: number): ContentCache => {
  const capacity = Math.max(0, megabytes) * 1024 * 1024;
  // Map order is recency: a use moves an entry to the end, and room is made from the front.
  const entries = new Map<string, Entry>();
  let held = 0;
  const touch = (key: string): Entry | undefined => {
    const entry = entries.get(key);
    if (entry !== undefined) {
      entries.delete(key);
      entries.set(key, entry);
    }
    return entry;
  };
  const makeRoom = () => {
    for (const [oldest, entry] of entries) {
      if (held <= capacity) break;
      entries.delete(oldest);
      held -= entry.size;
    }
  };
  return {
    enabled: capacity > 0,
    text: (key) => touch(key)?.text,
    json: (key) => {
      const entry = touch(key);
      if (entry === undefined) return undefined;
      if (entry.parsed === undefined) {
        entry.parsed = { value: parsedJson(entry.text) };
        held += entry.text.length;
        entry.size += entry.text.length;
        makeRoom();
      }
      return entry.parsed.value;
    },
    has: (key) => entries.has(key),
    keep: (key, text, value) => {
      const size = value === undefined ? text.length : 2 * text.length;
      if (entries.has(key) || size > capacity) return;
      entries.set(key, value === undefined ? { text, size } : { text, size, parsed: { value } });
      held += size;
      makeRoom();
    },
  };
};
