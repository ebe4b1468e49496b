-- Issue 32, decision 0040: runs held because they do not look like the dataset (drift), and what a
-- held run would write, so its owner can accept it later.
--
-- accept_drift: the owner asked to accept the run despite drift ({"acceptDrift": true}).
-- held_outcomes: one per dataset, the newest held run's, replaced by the next hold and dropped when a
-- held run is accepted; kept as JSON text, parsed by the host (nothing in SQL looks inside it).
alter table runs add column accept_drift boolean not null default false;

create table held_outcomes (
  dataset_id uuid primary key references datasets (id),
  run_id uuid not null,
  outcome text not null
);
