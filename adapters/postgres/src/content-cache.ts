// What a process keeps of the content its runs' kept reads are made of (decision 0035): page bodies
// by digest, observation documents by id, page records by key. Each is immutable under its key
// (inserted once, never updated), so a kept copy is right for as long as it is kept, whatever other
// processes do. A re-run then reads only its page reads' small rows (~4 MB less from the server on
// the books site). A body is kept as its text; a JSON document as its value only (decision 0036):
// the objects the acceptance that wrote it had in hand, or the document parsed once when read,
// shared by every later use as a memory store shares what it keeps. Its text is not kept beside it.

export interface ContentCache {
  readonly enabled: boolean;
  /** The text kept under `key`, if any (a use makes it the most recent). */
  readonly text: (key: string) => string | undefined;
  /** The JSON value kept under `key`, if any (a use makes it the most recent). */
  readonly json: (key: string) => unknown;
  readonly has: (key: string) => boolean;
  /** Keeps `text` under `key` (the least recently used make room; a text over the capacity is not kept). */
  readonly keepText: (key: string, text: string) => void;
  /**
   * Keeps the JSON `value` under `key`, counted as `size` (twice its text's length: a rough measure
   * of the heap its objects hold).
   */
  readonly keepValue: (key: string, value: unknown, size: number) => void;
}

/** Whether `text` has no lone surrogate: only such a string is its UTF-8 read back (ES2024's isWellFormed). */
export const isWellFormed = (text: string): boolean => (text as unknown as { isWellFormed(): boolean }).isWellFormed();

export const bodyKey = (sha256: string) => `b:${sha256}`;
export const observationKey = (id: string) => `o:${id}`;
export const recordsKey = (key: string) => `r:${key}`;

/** What a JSON document of `text` is counted as once kept as its value. */
export const valueSize = (text: string) => 2 * text.length;

type Entry = { readonly text: string; readonly size: number } | { readonly value: unknown; readonly size: number };

/** A cache of at most `megabytes` (a text counted as its characters, a value as `valueSize`; 0 keeps nothing). */
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
  const keep = (key: string, entry: Entry) => {
    if (entries.has(key) || entry.size > capacity) return;
    entries.set(key, entry);
    held += entry.size;
    for (const [oldest, kept] of entries) {
      if (held <= capacity) break;
      entries.delete(oldest);
      held -= kept.size;
    }
  };
  return {
    enabled: capacity > 0,
    text: (key) => {
      const entry = touch(key);
      return entry !== undefined && "text" in entry ? entry.text : undefined;
    },
    json: (key) => {
      const entry = touch(key);
      return entry !== undefined && "value" in entry ? entry.value : undefined;
    },
    has: (key) => entries.has(key),
    keepText: (key, text) => keep(key, { text, size: text.length }),
    keepValue: (key, value, size) => keep(key, { value, size }),
  };
};
