import { hash } from "node:crypto";
import * as Effect from "effect/Effect";

/**
 * SHA-256 as lower-case hex, through Web Crypto so core runs in any JavaScript runtime. Page
 * digests, edit request hashes and schema lock keys use this function; API key hashes and entity
 * tags use `sha256HexSync` below (the same digest).
 */
export const sha256HexOf = async (text: string): Promise<string> => hexDigest(new TextEncoder().encode(text));

const hexDigest = async (bytes: Uint8Array): Promise<string> => {
  const digest = await globalThis.crypto.subtle.digest("SHA-256", bytes);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
};

/**
 * The same digest computed synchronously with node:crypto's one-shot `hash`, for digests of short
 * text on a request's path (API key hashes, entity tags): Web Crypto's digest is asynchronous and
 * ~60 µs a call, this ~0.5 µs. Core already signs cursors with node:crypto.
 */
export const sha256HexSync = (text: string): string => hash("sha256", text, "hex");

/** The same digest as an Effect. */
export const sha256Hex = (text: string): Effect.Effect<string> => Effect.promise(() => sha256HexOf(text));

/**
 * The digest of a page body and its size in UTF-8 bytes (a page is tens of kilobytes; its artifact
 * records the size, its observation the digest). Synchronous, through node:crypto like
 * `sha256HexSync`: the same digest as Web Crypto's without copying the page into a new buffer first
 * or waiting a turn of the event loop per page.
 */
export const sha256HexAndSize = (text: string): Effect.Effect<{ readonly sha256: string; readonly size: number }> =>
  Effect.sync(() => ({ sha256: hash("sha256", text, "hex"), size: utf8Size(text) }));

/** A text's size in UTF-8 bytes (a kept page's artifact size, when its digest needs no new hash). */
export const utf8Size = (text: string): number => Buffer.byteLength(text, "utf8");

/**
 * The 64-bit PostgreSQL advisory lock key (as decimal text, for `pg_advisory_xact_lock($1::bigint)`)
 * under which every Gleaner package sets up tables in `schema`. The store's migrations and
 * Agenda's job table share a schema, and concurrent CREATE SCHEMA IF NOT EXISTS is not race-safe
 * in PostgreSQL, so both take this one key; stores in different schemas never wait on each other.
 */
export const schemaSetupLockKey = async (schema: string): Promise<string> =>
  BigInt.asIntN(64, BigInt(`0x${(await sha256HexOf(`gleaner:migrations:${schema}`)).slice(0, 16)}`)).toString();
