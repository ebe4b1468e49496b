import { createHash } from "node:crypto";
import { createApiKey, createOwnerApiKey, Credits, Storage } from "@gleaner/core";
import { expect } from "chai";
import * as Effect from "effect/Effect";
import { makeMemoryCredits } from "../src/credits.js";
import { MemoryState } from "../src/state.js";
import { makeMemoryStorage } from "../src/storage.js";

/** SPEC.md: API keys are stored as their SHA-256 only. Read the memory store's own records to see it. */
describe("memory store: API keys at rest", () => {
  it("keeps each key's SHA-256 hex and never the key, whether the operator or its owner made it", async () => {
    const state = new MemoryState();
    const run = <A, E>(effect: Effect.Effect<A, E, Storage | Credits>) =>
      Effect.runPromise(
        effect.pipe(
          Effect.provideService(Storage, makeMemoryStorage(state)),
          Effect.provideService(Credits, makeMemoryCredits(state)),
        ),
      );
    const { owner, key: first } = await run(createApiKey("at-rest", 5));
    const { secret: second } = await run(createOwnerApiKey(owner.id, { name: "laptop" }));

    const records = [...state.apiKeys.values()];
    const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");
    expect(records.map((record) => record.hash).sort()).to.deep.equal([sha256(first), sha256(second)].sort());
    for (const record of records) expect(record.hash).to.match(/^[0-9a-f]{64}$/);
    const stored = JSON.stringify([...state.apiKeys.entries()]);
    expect(stored).to.not.contain(first).and.not.contain(second);
    // What the owner sees of it: the first 7 and last 4 characters.
    expect(records.find((record) => record.name === "laptop")).to.include({
      prefix: second.slice(0, 7),
      lastFour: second.slice(-4),
    });
  });
});
