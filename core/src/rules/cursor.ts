import { Effect } from "effect";
import { BadRequest } from "../errors.js";

/**
 * Opaque keyset cursors. A cursor names what it pages (`kind`) and whose list it is (`scope`:
 * owner or dataset), so a cursor from another list is refused with 400 instead of silently
 * returning the wrong page. A short checksum catches edited cursors. It is not a secret: owner
 * scoping, not the cursor, is what keeps data private.
 */
const checksum = (text: string): string => {
  // FNV-1a 32-bit: a tamper check, not a security boundary.
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(36);
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

export const encodeCursor = (kind: string, scope: string, position: ReadonlyArray<string | number>): string => {
  const body = JSON.stringify([kind, scope, position]);
  return `${toBase64Url(body)}.${checksum(body)}`;
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
    if (checksum(body) !== sum) return Effect.fail(invalid());
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
