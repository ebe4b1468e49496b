import * as Effect from "effect/Effect";
import * as Schema from "effect/Schema";
import type { ApiKeyRecord } from "../domain.js";
import { NotFound } from "../errors.js";
import { Storage } from "../ports/storage.js";
import { newApiKey } from "../rules/api-keys.js";
import type { OwnerId } from "../schema/ids.js";
import { nowIso } from "../time.js";
import { checkApiKeyLimit } from "./owner-limits.js";
import { keyRecord } from "./owners.js";

/** An API key as its owner sees it: never the key, nor its hash. */
export const ApiKey = Schema.Struct({
  id: Schema.NullOr(Schema.UUID),
  name: Schema.NullOr(Schema.String),
  prefix: Schema.NullOr(Schema.String).annotations({ description: "The key's first 7 characters (gl_…)." }),
  lastFour: Schema.NullOr(Schema.String),
  createdAt: Schema.String,
  lastUsedAt: Schema.NullOr(Schema.String),
}).annotations({ identifier: "ApiKey" });
export type ApiKey = typeof ApiKey.Type;

export const ApiKeyList = Schema.Struct({ keys: Schema.Array(ApiKey) }).annotations({ identifier: "ApiKeyList" });
export const CreateApiKeyRequest = Schema.Struct({
  name: Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(100))),
}).annotations({ identifier: "CreateApiKeyRequest" });
export const CreatedApiKey = Schema.Struct({
  key: ApiKey,
  secret: Schema.String.annotations({ description: "The key itself, shown only in this answer." }),
}).annotations({ identifier: "CreatedApiKey" });

const toApiKey = (record: ApiKeyRecord): ApiKey => ({
  id: record.id ?? null,
  name: record.name ?? null,
  prefix: record.prefix ?? null,
  lastFour: record.lastFour ?? null,
  createdAt: record.createdAt,
  lastUsedAt: record.lastUsedAt ?? null,
});

/** The owner's keys, oldest first. */
export const listApiKeys = (ownerId: OwnerId) =>
  Effect.map(
    Effect.flatMap(Storage, (storage) => storage.listApiKeys(ownerId)),
    (records) => ({ keys: records.map(toApiKey) }),
  );

/** A new key for the owner; its secret is in this answer and nowhere else (SHA-256 at rest). */
export const createOwnerApiKey = (ownerId: OwnerId, request?: typeof CreateApiKeyRequest.Type) =>
  Effect.gen(function* () {
    yield* checkApiKeyLimit(ownerId);
    const secret = newApiKey();
    const record = keyRecord(secret, ownerId, request?.name ?? null, yield* nowIso);
    yield* (yield* Storage).addApiKey(record);
    return { key: toApiKey(record), secret };
  });

/** Revokes the owner's key: the next request with it is 401 in every process. Another owner's is 404. */
export const revokeApiKey = (ownerId: OwnerId, id: string) =>
  Effect.gen(function* () {
    const revoked = yield* (yield* Storage).revokeApiKey(ownerId, id);
    if (!revoked) return yield* Effect.fail(new NotFound({ resource: "key", id }));
  });
