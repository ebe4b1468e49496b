import * as Clock from "effect/Clock";
import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import type { ApiKeyRecord, Owner } from "../domain.js";
import { type StorageFailure, Unauthorized } from "../errors.js";
import { Credits } from "../ports/credits.js";
import { Storage, type StorageService } from "../ports/storage.js";
import { digestsEqual, hashApiKey, looksLikeApiKey, newApiKey } from "../rules/api-keys.js";
import { newId, type OwnerId } from "../schema/ids.js";
import { isoAt, nowIso } from "../time.js";

/** Finds the owner by name, creating it when it does not exist yet. */
export const ensureOwner = (name: string) =>
  Effect.gen(function* () {
    const storage = yield* Storage;
    const existing = yield* storage.findOwnerByName(name);
    if (Option.isSome(existing)) return existing.value;
    const owner: Owner = { id: newId<OwnerId>(), name, createdAt: yield* nowIso };
    yield* storage.createOwner(owner).pipe(
      // Two processes creating the same owner at once: the loser reads the winner's row.
      Effect.catchTag("Conflict", () => Effect.void),
    );
    return Option.getOrThrow(yield* storage.findOwnerByName(name));
  });

/**
 * Creates an API key for an owner (created on first use), optionally granting credits. The key
 * text is returned once and never stored.
 */
export const createApiKey = (ownerName: string, credits = 0) =>
  Effect.gen(function* () {
    const storage = yield* Storage;
    const owner = yield* ensureOwner(ownerName);
    const key = newApiKey();
    yield* storage.addApiKey(keyRecord(key, owner.id, null, yield* nowIso));
    if (credits > 0) yield* (yield* Credits).grant(owner.id, credits);
    return { owner, key };
  });

export const grantCredits = (ownerName: string, amount: number) =>
  Effect.gen(function* () {
    const storage = yield* Storage;
    const owner = yield* storage.findOwnerByName(ownerName);
    if (Option.isNone(owner))
      return yield* Effect.fail(new Unauthorized({ message: `No owner named "${ownerName}".` }));
    const entry = yield* (yield* Credits).grant(owner.value.id, amount);
    return { owner: owner.value, entry, balance: yield* (yield* Credits).balance(owner.value.id) };
  });

/** A new key's record: its hash, and what its owner will see of it (never the key itself). */
export const keyRecord = (key: string, ownerId: OwnerId, name: string | null, createdAt: string): ApiKeyRecord => ({
  hash: hashApiKey(key),
  ownerId,
  createdAt,
  id: newId(),
  name,
  prefix: key.slice(0, 7),
  lastFour: key.slice(-4),
  lastUsedAt: null,
});

/** How stale a key's lastUsedAt may be before a request writes it again: one write a minute per key. */
const keyUseGranularityMs = 60_000;

/** Notes a key's use when its lastUsedAt is a minute old or more; a failed note never fails the request. */
const noteKeyUsed = (storage: StorageService, key: ApiKeyRecord) =>
  Effect.flatMap(Clock.currentTimeMillis, (now) =>
    key.lastUsedAt && now - Date.parse(key.lastUsedAt) < keyUseGranularityMs
      ? Effect.void
      : storage.markApiKeyUsed(key.hash, isoAt(now)).pipe(Effect.ignore),
  );

const refused = new Unauthorized({ message: "A valid API key is required: send Authorization: Bearer gl_…" });

/** Who a request is from, and the owner's balance read with the key (the answer's X-Credits-Remaining). */
export interface Authenticated {
  readonly owner: Owner;
  readonly balance: number;
}

/**
 * Resolves `Authorization: Bearer gl_…` to its owner and the owner's balance, or Unauthorized. Every
 * authenticated request runs it, so it is one lookup in a flatMap rather than a generator, and the
 * store answers the balance with the key (decision 0042).
 */
export const authenticateWithBalance = (
  authorization: string | undefined,
): Effect.Effect<Authenticated, Unauthorized | StorageFailure, Storage> =>
  Effect.suspend(() => {
    const key = /^Bearer ([^\s]+)$/i.exec(authorization?.trim() ?? "")?.[1];
    if (!key || !looksLikeApiKey(key)) return Effect.fail(refused);
    const hash = hashApiKey(key);
    return Effect.flatMap(Storage, (storage) =>
      Effect.flatMap(storage.findApiKey(hash), (found) =>
        // The store looked the hash up by index; compare it in constant time before trusting it.
        Option.isNone(found) || !digestsEqual(found.value.key.hash, hash)
          ? Effect.fail(refused)
          : Effect.as(noteKeyUsed(storage, found.value.key), {
              owner: found.value.owner,
              balance: found.value.balance,
            }),
      ),
    );
  });

/** Resolves `Authorization: Bearer gl_…` to its owner, or Unauthorized. */
export const authenticate = (authorization: string | undefined) =>
  Effect.map(authenticateWithBalance(authorization), (authenticated) => authenticated.owner);

export const ownerBalance = (ownerId: OwnerId) => Effect.flatMap(Credits, (credits) => credits.balance(ownerId));
