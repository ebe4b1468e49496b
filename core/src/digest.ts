import * as Effect from "effect/Effect";

/**
 * SHA-256 as lower-case hex, through Web Crypto so core runs in any JavaScript runtime. Page
 * digests, API key hashes, edit request hashes and schema lock keys all use this one function.
 */
export const sha256HexOf = async (text: string): Promise<string> => hexDigest(new TextEncoder().encode(text));

const hexDigest = async (bytes: Uint8Array): Promise<string> => {
  const digest = await globalThis.crypto.subtle.digest("SHA-256", bytes);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
};

/** The same digest as an Effect. */
export const sha256Hex = (text: string): Effect.Effect<string> => Effect.promise(() => sha256HexOf(text));

/**
 * The digest of a page body and its size in UTF-8 bytes, from one encoding of the text (a page is
 * tens of kilobytes; its artifact records the size, its observation the digest).
 */
export const sha256HexAndSize = (text: string): Effect.Effect<{ readonly sha256: string; readonly size: number }> =>
  Effect.promise(async () => {
    const bytes = new TextEncoder().encode(text);
    return { sha256: await hexDigest(bytes), size: bytes.byteLength };
  });

/** A text's size in UTF-8 bytes (a kept page's artifact size, when its digest needs no new hash). */
export const utf8Size = (text: string): number => new TextEncoder().encode(text).byteLength;

/**
 * The 64-bit PostgreSQL advisory lock key (as decimal text, for `pg_advisory_xact_lock($1::bigint)`)
 * under which every Gleaner package sets up tables in `schema`. The store's migrations and
 * Agenda's job table share a schema, and concurrent CREATE SCHEMA IF NOT EXISTS is not race-safe
 * in PostgreSQL, so both take this one key; stores in different schemas never wait on each other.
 */
export const schemaSetupLockKey = async (schema: string): Promise<string> =>
  BigInt.asIntN(64, BigInt(`0x${(await sha256HexOf(`gleaner:migrations:${schema}`)).slice(0, 16)}`)).toString();
