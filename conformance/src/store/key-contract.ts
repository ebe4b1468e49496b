import { type ApiKeyRecord, newId, type OwnerId } from "@gleaner/core";
import { expect } from "chai";
import * as Option from "effect/Option";
import { it } from "../runner.js";
import { anOwner } from "./fixtures.js";
import type { StoreHarness } from "./harness.js";

const aKey = (ownerId: OwnerId, name: string, createdAt: string): ApiKeyRecord => ({
  hash: `hash-${newId()}`,
  ownerId,
  createdAt,
  id: newId(),
  name,
  prefix: "glk_abcd",
  lastFour: "wxyz",
  lastUsedAt: null,
});

/** An owner's API keys as the keys routes use them: listed oldest first, revoked by id, marked when used. */
export const keyStoreCases = ({ run }: StoreHarness): void => {
  const ownerWithKeys = async (names: ReadonlyArray<string>) => {
    const owner = anOwner();
    await run((s) => s.createOwner(owner));
    // Added newest first, so a store that lists by insertion fails the order.
    const keys = names.map((name, i) => aKey(owner.id, name, new Date(Date.UTC(2026, 0, 1 + i)).toISOString()));
    for (const key of [...keys].reverse()) await run((s) => s.addApiKey(key));
    return { owner, keys };
  };

  it("lists an owner's keys oldest first with what listing shows, and no other owner's", async () => {
    const { owner, keys } = await ownerWithKeys(["ci", "laptop", "server"]);
    await ownerWithKeys(["someone else's"]);
    const listed = await run((s) => s.listApiKeys(owner.id));
    expect(listed).to.deep.equal(keys);
    expect(await run((s) => s.listApiKeys(anOwner().id))).to.deep.equal([]);
  });

  it("revokes the owner's key by id, once, so it is found no more; never another owner's", async () => {
    const { owner, keys } = await ownerWithKeys(["kept", "revoked"]);
    const other = await ownerWithKeys(["theirs"]);
    const [kept, revoked] = keys as [ApiKeyRecord, ApiKeyRecord];
    expect(await run((s) => s.revokeApiKey(other.owner.id, revoked.id!))).to.equal(false);
    expect(await run((s) => s.revokeApiKey(owner.id, revoked.id!))).to.equal(true);
    expect(await run((s) => s.revokeApiKey(owner.id, revoked.id!))).to.equal(false);
    expect(await run((s) => s.revokeApiKey(owner.id, newId()))).to.equal(false);
    expect(Option.isNone(await run((s) => s.findApiKey(revoked.hash)))).to.equal(true);
    expect(Option.isSome(await run((s) => s.findApiKey(kept.hash)))).to.equal(true);
    expect(await run((s) => s.listApiKeys(owner.id))).to.deep.equal([kept]);
    expect(await run((s) => s.listApiKeys(other.owner.id))).to.deep.equal(other.keys);
  });

  it("records when a key was last used, latest mark kept, on that key alone", async () => {
    const { owner, keys } = await ownerWithKeys(["used", "idle"]);
    const [used, idle] = keys as [ApiKeyRecord, ApiKeyRecord];
    await run((s) => s.markApiKeyUsed(used.hash, "2026-02-01T10:00:00.000Z"));
    await run((s) => s.markApiKeyUsed(used.hash, "2026-02-01T10:01:00.000Z"));
    await run((s) => s.markApiKeyUsed(`hash-${newId()}`, "2026-02-01T10:01:00.000Z"));
    const found = Option.getOrThrow(await run((s) => s.findApiKey(used.hash)));
    expect(found.key.lastUsedAt).to.equal("2026-02-01T10:01:00.000Z");
    expect(await run((s) => s.listApiKeys(owner.id))).to.deep.equal([
      { ...used, lastUsedAt: "2026-02-01T10:01:00.000Z" },
      idle,
    ]);
  });
};
