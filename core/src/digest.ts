import { hash } from "node:crypto";
import * as Effect from "effect/Effect";

/**
 * SHA-256 of a text's UTF-8 bytes as lower-case hex: page digests, API key hashes, entity tags, edit
 * request hashes and schema lock keys. One implementation, node:crypto's one-shot `hash`, synchronous
 * and far cheaper per call than Web Crypto's asynchronous digest, with the same hex, so digests stored
 * before still match. Core also signs cursors with node:crypto.
 */
export const sha256HexSync = (text: string): string => hash("sha256", text, "hex");

/** The same digest behind a promise, for callers written against the earlier asynchronous one. */
export const sha256HexOf = async (text: string): Promise<string> => sha256HexSync(text);

/** The same digest as an Effect. */
export const sha256Hex = (text: string): Effect.Effect<string> => Effect.sync(() => sha256HexSync(text));

/**
 * The digest of a page body and its size in UTF-8 bytes (a page is tens of kilobytes; its artifact
 * records the size, its observation the digest), without copying the page into a new buffer first.
 */
export const sha256HexAndSize = (text: string): Effect.Effect<{ readonly sha256: string; readonly size: number }> =>
  Effect.sync(() => ({ sha256: sha256HexSync(text), size: utf8Size(text) }));

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
