-- Webhooks (docs/decisions/0018-data-out.md): receivers, the outbox written in the same
-- transaction as a run's outcome, and the attempts GET /v1/webhooks/{id}/deliveries shows.
create table webhooks (
  id uuid primary key,
  owner_id uuid not null references owners (id),
  url text not null,
  events text[] not null,
  dataset_id uuid references datasets (id),
  -- Kept as given: it signs every delivery. Never returned after registration.
  secret text not null,
  created_at timestamptz not null
);
create index webhooks_owner on webhooks (owner_id, created_at);

create table webhook_messages (
  -- The Standard Webhooks webhook-id, stable across retries.
  id text primary key,
  -- position orders one dataset's messages: a webhook's later messages wait behind its oldest pending one.
  position bigserial not null,
  webhook_id uuid not null references webhooks (id) on delete cascade,
  dataset_id uuid not null,
  payload jsonb not null,
  status text not null check (status in ('pending', 'delivered', 'failed')),
  attempts integer not null default 0,
  next_attempt_at timestamptz,
  created_at timestamptz not null
);
create index webhook_messages_pending on webhook_messages (dataset_id, webhook_id, position) where status = 'pending';

create table webhook_attempts (
  message_id text not null references webhook_messages (id) on delete cascade,
  webhook_id uuid not null references webhooks (id) on delete cascade,
  event_type text not null,
  attempt integer not null,
  status text not null,
  response_status integer,
  error text,
  duration_ms integer not null,
  next_retry_at timestamptz,
  attempted_at timestamptz not null,
  primary key (message_id, attempt)
);
create index webhook_attempts_recent on webhook_attempts (webhook_id, attempted_at desc);
