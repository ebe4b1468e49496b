-- Per-owner limits (docs/decisions/0016-reliability.md) count an owner's active and recent runs
-- on every run creation: one index keeps that an index range scan instead of a table scan.
create index runs_owner_recent on runs (owner_id, queued_at);
