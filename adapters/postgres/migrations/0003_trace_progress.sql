-- The trace of a run in flight, replaced as the run works so GET /v1/runs/{id}/trace can follow it
-- from any process. Rows of finished runs are deleted when the run's evidence is written.
create table run_trace_progress (
  run_id uuid primary key references runs (id),
  trace jsonb not null,
  updated_at timestamptz not null default now()
);
