import { expect } from "chai";
import { describe, it } from "mocha";
import * as Effect from "effect/Effect";
import { sha256HexAndSize, sha256HexSync } from "../src/digest.js";
import { hashApiKey } from "../src/rules/api-keys.js";

/** Web Crypto's digest, as core computed every digest before (stored key hashes and page digests). */
const webCryptoHex = async (text: string): Promise<string> =>
  Array.from(new Uint8Array(await globalThis.crypto.subtle.digest("SHA-256", new TextEncoder().encode(text))), (b) =>
    b.toString(16).padStart(2, "0"),
  ).join("");

describe("SHA-256 digests", () => {
  it("computes the same hex digest synchronously as through Web Crypto, for any text", async () => {
    expect(sha256HexSync("abc")).to.equal("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    for (const text of ["", "gl_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "naïve ✓ 日本", "x".repeat(100_000)]) {
      expect(sha256HexSync(text)).to.equal(await webCryptoHex(text));
    }
  });

  it("hashes an API key to the digest stored for it before keys were hashed synchronously", async () => {
    const key = "gl_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG";
    expect(hashApiKey(key)).to.equal(await webCryptoHex(key));
  });

  it("gives a page body's digest (the one stored before) and its size in UTF-8 bytes", async () => {
    for (const text of ["", "<p>naïve ✓ 日本 😀</p>", "<li>x</li>".repeat(10_000)]) {
      const { sha256, size } = Effect.runSync(sha256HexAndSize(text));
      expect(sha256).to.equal(await webCryptoHex(text));
      expect(size).to.equal(new TextEncoder().encode(text).byteLength);
    }
  });
});
