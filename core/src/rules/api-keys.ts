import { sha256HexSync } from "../digest.js";

/**
 * API keys are `gl_` followed by 43 base64url characters (32 random bytes). Only the SHA-256 hash
 * is stored; a presented key is hashed and the hashes compared in constant time. Hashed
 * synchronously: every authenticated request hashes its key, and Web Crypto's asynchronous digest
 * was a tenth of a rows page's time (decision 0042).
 */
export const apiKeyPrefix = "gl_";

export const newApiKey = (): string => {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(32));
  const b64 = btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
  return `${apiKeyPrefix}${b64}`;
};

export const hashApiKey = (key: string): string => sha256HexSync(key);

/** Equal-length hex digests compared without an early exit, so timing reveals nothing. */
export const digestsEqual = (a: string, b: string): boolean => {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
};

/** Shape check before any lookup: a malformed key is refused without touching storage. */
export const looksLikeApiKey = (key: string): boolean => /^gl_[A-Za-z0-9_-]{20,200}$/.test(key);
