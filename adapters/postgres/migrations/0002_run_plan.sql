-- 0002: the engine's recorded plan per run (pinned recipe, checks' named records, reconciliation,
-- pages to charge), read by diagnostics. Null for runs recorded before this migration.

alter table run_evidence add column plan jsonb;
