import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import { BadRequest } from "../errors.js";

/**
 * Opaque keyset cursors. A cursor names what it pages (`kind`) and whose list it is (`scope`:
 * owner or dataset), so a cursor from another list is refused with 400 instead of silently
 * returning the wrong page. An HMAC-SHA256 under the deployment's cursor secret signs it, so an
 * edited or invented cursor is refused (docs/decisions/0012-one-house.md). Owner scoping, not the
 * cursor, is still what keeps data private.
 */

/** Without a host-provided secret: random per process, so cursors live as long as the process. */
const processCursorSecret: Uint8Array = randomBytes(32);

/**
 * The key cursors are signed with. Every API process of one deployment must share it (a cursor
 * from one process is read by another); the host provides it from GLEANER_CURSOR_SECRET or derives
 * it from its store's settings. The default suits a store that lives in one process.
 */
export class CursorSecret extends Context.Reference<CursorSecret>()("@gleaner/core/CursorSecret", {
  defaultValue: (): Uint8Array => processCursorSecret,
}) {}

/** 128 bits of HMAC-SHA256, base64url. */
const signature = (secret: Uint8Array, body: string): string =>
  createHmac("sha256", secret).update(body).digest().subarray(0, 16).toString("base64url");

const sameSignature = (a: string, b: string): boolean => {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
};

const toBase64Url = (text: string): string =>
  btoa(String.fromCharCode(...new TextEncoder().encode(text)))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");

const fromBase64Url = (text: string): string => {
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
};

export const encodeCursor = (
  kind: string,
  scope: string,
  position: ReadonlyArray<string | number>,
  secret: Uint8Array = processCursorSecret,
): string => {
  const body = JSON.stringify([kind, scope, position]);
  return `${toBase64Url(body)}.${signature(secret, body)}`;
};

const invalid = () =>
  new BadRequest({
    message: 'Query parameter "cursor" is not a cursor this list returned; pass nextCursor from the previous page.',
    details: [{ path: "cursor", message: "is invalid or belongs to another list" }],
  });

export const decodeCursor = (
  kind: string,
  scope: string,
  cursor: string,
  secret: Uint8Array = processCursorSecret,
): Effect.Effect<ReadonlyArray<string | number>, BadRequest> =>
  Effect.suspend(() => {
    const [encoded, sum, extra] = cursor.split(".");
    if (!encoded || !sum || extra !== undefined) return Effect.fail(invalid());
    let body: string;
    try {
      body = fromBase64Url(encoded);
    } catch {
      return Effect.fail(invalid());
    }
    if (!sameSignature(signature(secret, body), sum)) return Effect.fail(invalid());
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return Effect.fail(invalid());
    }
    if (!Array.isArray(parsed) || parsed[0] !== kind || parsed[1] !== scope || !Array.isArray(parsed[2])) {
      return Effect.fail(invalid());
    }
    const position = parsed[2] as unknown[];
    if (!position.every((v) => typeof v === "string" || typeof v === "number")) return Effect.fail(invalid());
    return Effect.succeed(position as Array<string | number>);
  });
