-- Research runs (docs/decisions/0014-research-runs.md): a row's entity identity, and the pinned
-- research recipe kept with the run's evidence. Both null for deterministic runs and older rows.
alter table rows add column identity jsonb;
alter table run_evidence add column recipe jsonb;
