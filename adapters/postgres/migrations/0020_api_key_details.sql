-- What an owner sees of its keys (GET /v1/keys): an id to revoke a key by, an optional name, the key's
-- first 7 and last 4 characters, and when it was last used. The key itself is never stored; keys made
-- before this migration get an id and nothing else.
alter table api_keys
  add column id uuid,
  add column name text,
  add column prefix text,
  add column last_four text,
  add column last_used_at timestamptz;
update api_keys set id = gen_random_uuid() where id is null;
alter table api_keys alter column id set not null;
create unique index api_keys_id on api_keys (id);
create index api_keys_owner on api_keys (owner_id, created_at);
