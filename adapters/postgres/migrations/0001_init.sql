-- 0001: the whole Gleaner store as of issue 7. Runs inside one transaction with search_path set to
-- the configured schema, so nothing here names a schema. Constraint and index names are part of the
-- adapter's contract: src/errors.ts maps unique violations to Conflict codes by these names.

create table owners (
  id uuid primary key,
  name text not null,
  created_at timestamptz not null,
  constraint owners_name_key unique (name)
);

create table api_keys (
  hash text primary key,
  owner_id uuid not null references owners (id),
  created_at timestamptz not null
);

-- recipes and schemas are immutable version histories that are always read and replaced with the
-- dataset (the record is the unit of the optimistic revision check), so they live beside it as jsonb.
-- last_sequence is the per-dataset revision counter: incremented with UPDATE … RETURNING in the same
-- transaction that inserts the revisions, which makes sequences gapless and atomic.
create table datasets (
  id uuid primary key,
  owner_id uuid not null references owners (id),
  name text not null,
  question text,
  columns jsonb not null,
  schema_version integer not null,
  status text not null,
  schedule text,
  schedule_state jsonb,
  bot_id text not null,
  recipes jsonb not null,
  schemas jsonb not null,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  revision integer not null,
  last_sequence bigint not null default 0,
  constraint datasets_owner_name_key unique (owner_id, name)
);
create index datasets_owner_newest on datasets (owner_id, created_at desc, id desc);
-- The scheduler lists active routines across owners on every start.
create index datasets_active_routines on datasets (created_at, id) where schedule_state->>'status' = 'active';

create table runs (
  id uuid primary key,
  dataset_id uuid not null references datasets (id),
  owner_id uuid not null references owners (id),
  status text not null check (status in ('queued', 'running', 'succeeded', 'failed', 'blocked', 'held')),
  trigger text not null,
  checks jsonb not null,
  row_deltas jsonb not null,
  error text,
  queued_at timestamptz not null,
  started_at timestamptz,
  completed_at timestamptz,
  attempts integer not null,
  charged_pages integer
);
create index runs_dataset_newest on runs (dataset_id, queued_at desc, id desc);
-- At most one queued or running run per dataset, whoever inserts it.
create unique index runs_one_active_per_dataset on runs (dataset_id) where status in ('queued', 'running');

create table run_evidence (
  run_id uuid primary key references runs (id),
  trace jsonb not null,
  facts jsonb not null,
  failures jsonb not null
);

-- Page bodies are bytea: a body may hold NUL bytes, which PostgreSQL text and jsonb refuse.
create table run_artifacts (
  run_id uuid not null references runs (id),
  position integer not null,
  id text not null,
  kind text not null,
  url text not null,
  content_type text not null,
  sha256 text not null,
  size integer not null,
  truncated boolean not null,
  body bytea,
  created_at timestamptz not null,
  primary key (run_id, position)
);
create index run_artifacts_by_id on run_artifacts (run_id, id);

create table rows (
  id uuid primary key,
  dataset_id uuid not null references datasets (id),
  row_key text not null,
  data jsonb not null,
  evidence jsonb not null,
  overrides jsonb not null,
  missing_reasons jsonb not null,
  presence text not null,
  status text not null,
  first_seen_run_id uuid not null,
  last_seen_run_id uuid not null,
  source_url text not null,
  observed_at timestamptz not null,
  updated_at timestamptz not null,
  revision_id uuid
);
create index rows_dataset_newest on rows (dataset_id, updated_at desc, id desc);

create table revisions (
  id uuid primary key,
  dataset_id uuid not null references datasets (id),
  row_id uuid not null,
  sequence bigint not null,
  schema_version integer not null,
  previous_revision_id uuid,
  run_id uuid,
  actor_id uuid,
  request_id text,
  request_hash text,
  origin text not null,
  kind text not null,
  changed_field_ids text[] not null,
  data jsonb not null,
  evidence jsonb not null,
  overrides jsonb not null,
  missing_reasons jsonb not null,
  presence text not null,
  created_at timestamptz not null,
  before jsonb,
  before_overrides jsonb,
  constraint revisions_dataset_sequence_key unique (dataset_id, sequence)
);
create unique index revisions_request_key on revisions (dataset_id, request_id) where request_id is not null;
create index revisions_row_timeline on revisions (dataset_id, row_id, sequence);

-- Observations are kept whole (optional members stay absent); the columns beside are for lookups.
create table observations (
  id uuid primary key,
  dataset_id uuid,
  run_id uuid,
  document jsonb not null
);

-- The ledger is append-only; the balance is its sum. seq orders entries by insertion (several can
-- share a millisecond). One charge per run, enforced here, makes charging idempotent by run id.
create table ledger_entries (
  seq bigserial primary key,
  id uuid not null,
  owner_id uuid not null references owners (id),
  kind text not null check (kind in ('grant', 'charge', 'refund')),
  amount integer not null,
  run_id uuid,
  dataset_id uuid,
  pages integer,
  created_at timestamptz not null,
  constraint ledger_entries_id_key unique (id)
);
create index ledger_entries_owner_newest on ledger_entries (owner_id, seq desc);
create unique index ledger_one_charge_per_run on ledger_entries (run_id) where kind = 'charge';
