-- Issue 17, decision 0025: a page read's extraction repeats the page's observation entries (the
-- excerpts), which the same acceptance stores as the page's observation. When it does, the
-- extraction is kept without them and entries_observation_id names that observation (observations
-- are never deleted); null: the extraction holds its own entries, as every one stored before this
-- migration does. A process built before this migration reads the extraction alone; its decoder
-- requires the entries, so it refuses one kept without them and parses the page instead.
alter table page_reads add column entries_observation_id uuid;
