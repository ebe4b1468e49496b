-- Seen-markers written once per run instead of once per row (decision 0020). Every accepted run
-- sees every present row of its dataset (reconciliation marks the unseen ones missing), and a row
-- it saw unchanged differs from the stored one only in last_seen_run_id, observed_at and status.
-- So each acceptance records here which run saw the dataset last and when; a present row whose
-- own last_seen_run_id is another run reads as seen by that run, `unchanged`. Rows the run wrote
-- carry their own markers (last_seen_run_id = the run), as do rows an edit rewrites.
create table row_sightings (
  dataset_id uuid primary key references datasets (id),
  run_id uuid not null,
  observed_at timestamptz not null
);
