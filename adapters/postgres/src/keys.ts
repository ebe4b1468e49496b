import { ApiKeyRecord, type DatasetStorage, storedDecoder } from "@gleaner/core";
import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import { type Db, isUuid } from "./db.js";

interface KeyRow {
  readonly hash: string;
  readonly owner_id: string;
  readonly created_at: Date;
  readonly id: string;
  readonly name: string | null;
  readonly prefix: string | null;
  readonly last_four: string | null;
  readonly last_used_at: Date | null;
}

const decodeKey = storedDecoder(ApiKeyRecord, "PostgreSQL", "API key");

const keyOf = (row: KeyRow) =>
  decodeKey({
    hash: row.hash,
    ownerId: row.owner_id,
    createdAt: row.created_at.toISOString(),
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    lastFour: row.last_four,
    lastUsedAt: row.last_used_at ? row.last_used_at.toISOString() : null,
  });

/** The owners' API keys (migration 0020): what an owner lists, revokes and when each was last used. */
export const makeKeyMethods = (
  db: Db,
): Pick<DatasetStorage, "addApiKey" | "findApiKey" | "listApiKeys" | "revokeApiKey" | "markApiKeyUsed"> => ({
  addApiKey: (key) =>
    db
      .query(
        `insert into api_keys (hash, owner_id, created_at, id, name, prefix, last_four, last_used_at)
         values ($1, $2, $3, coalesce($4::uuid, gen_random_uuid()), $5, $6, $7, $8)
         on conflict (hash) do update set owner_id = excluded.owner_id, created_at = excluded.created_at`,
        [
          key.hash,
          key.ownerId,
          key.createdAt,
          key.id ?? null,
          key.name ?? null,
          key.prefix ?? null,
          key.lastFour ?? null,
          key.lastUsedAt ?? null,
        ],
      )
      .pipe(Effect.asVoid),

  // The owner row keeps the balance, so the key, its owner and the balance are one row.
  findApiKey: (hash) =>
    db
      .query<KeyRow & { readonly name_of_owner: string; readonly owner_created_at: Date; readonly balance: string }>(
        `select k.hash, k.owner_id, k.created_at, k.id, k.name, k.prefix, k.last_four, k.last_used_at,
                o.name as name_of_owner, o.created_at as owner_created_at, o.balance::text as balance
           from api_keys k join owners o on o.id = k.owner_id
          where k.hash = $1`,
        [hash],
      )
      .pipe(
        Effect.flatMap(([row]) =>
          row === undefined
            ? Effect.succeed(Option.none())
            : Effect.map(keyOf(row), (key) =>
                Option.some({
                  key,
                  owner: { id: key.ownerId, name: row.name_of_owner, createdAt: row.owner_created_at.toISOString() },
                  balance: Number(row.balance),
                }),
              ),
        ),
      ),

  listApiKeys: (ownerId) =>
    !isUuid(ownerId)
      ? Effect.succeed([])
      : db
          .query<KeyRow>("select * from api_keys where owner_id = $1 order by created_at, id", [ownerId])
          .pipe(Effect.flatMap((rows) => Effect.forEach(rows, keyOf))),

  revokeApiKey: (ownerId, id) =>
    !isUuid(ownerId) || !isUuid(id)
      ? Effect.succeed(false)
      : db
          .query("delete from api_keys where owner_id = $1 and id = $2 returning id", [ownerId, id])
          .pipe(Effect.map((rows) => rows.length > 0)),

  markApiKeyUsed: (hash, at) =>
    db.query("update api_keys set last_used_at = $2 where hash = $1", [hash, at]).pipe(Effect.asVoid),
});
