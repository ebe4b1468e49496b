import { createHash } from "node:crypto";
import { expect } from "chai";
import * as Effect from "effect/Effect";
import { recordArtifact } from "../src/engine/research/artifacts.js";
import type { RunId } from "../src/schema/ids.js";

const runId = "00000000-0000-4000-8000-000000000001" as RunId;
const record = (body: string) =>
  Effect.runPromise(
    recordArtifact(runId, "cleaned page text", "http://site/1", body, "text/plain", "2026-11-01T00:00:00.000Z"),
  );
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

describe("research artifacts (SPEC.md's 64 KiB body cap)", () => {
  it("keeps a body up to 64 KiB with its hash and size in bytes", async () => {
    const body = "Göteborg ".repeat(100);
    const artifact = await record(body);
    expect(artifact).to.include({ kind: "cleaned page text", url: "http://site/1", truncated: false, body });
    expect(artifact.size).to.equal(Buffer.byteLength(body, "utf8"));
    expect(artifact.sha256).to.equal(sha256(body));
  });

  it("drops a body over 64 KiB but keeps the whole body's hash and size", async () => {
    const body = "x".repeat(64 * 1024 + 1);
    const artifact = await record(body);
    expect(artifact).to.include({ truncated: true, body: null, size: 64 * 1024 + 1 });
    expect(artifact.sha256).to.equal(sha256(body));
    expect((await record("x".repeat(64 * 1024))).truncated).to.equal(false);
  });
});
