-- Issue 17, decision 0025: an acceptance stores each large piece of JSON once.
--
-- A row's state (data, evidence, overrides, missing reasons) is, for nearly every row an acceptance
-- or an edit writes, exactly the state of the revision it writes with it (rows.revision_id, its
-- head). Such a row now keeps no copy: its four JSON columns are null and reads take them from that
-- revision (revisions are never deleted or changed). A row whose state is not its head revision's
-- keeps its own copy, as every row stored before this migration does. presence stays on the row:
-- the sighting rule reads it (migration 0009).
alter table rows
  alter column data drop not null,
  alter column evidence drop not null,
  alter column overrides drop not null,
  alter column missing_reasons drop not null,
  add constraint rows_state_or_head check (
    (data is not null and evidence is not null and overrides is not null and missing_reasons is not null)
    or (data is null and evidence is null and overrides is null and missing_reasons is null
        and revision_id is not null)
  );

-- A page read's extraction repeats the page's observation entries (the excerpts), which the same
-- acceptance stores as the page's observation. When it does, the extraction is kept without them
-- and entries_observation_id names that observation (observations are never deleted or changed);
-- null: the extraction holds its own entries, as every one stored before this migration does.
alter table page_reads add column entries_observation_id uuid;
