import { LRUCache } from "lru-cache";

/**
 * Serialized answers of tagged GET routes (decision 0042), keyed by their entity tag. A tag changes
 * whenever the answer can (a tag names its dataset and query, so also its owner), so an answer
 * cached under it stays right; a tag computed before a write that the answer already shows only
 * keys a newer answer, which is harmless. Kept as UTF-8 bytes, so a hit is not encoded again.
 * Bounded by bytes: a rows page is up to ~0.5 MB.
 */
export const taggedPages = (maxBytes = 32 * 1024 * 1024) =>
  new LRUCache<string, Buffer>({ maxSize: maxBytes, sizeCalculation: (bytes) => Math.max(1, bytes.byteLength) });

export type TaggedPages = ReturnType<typeof taggedPages>;
