-- The retention prune deletes the page bodies no artifact and no kept page read holds: these indexes
-- let it ask per body instead of scanning both tables, so its brief lock on page_bodies stays brief.
create index run_artifacts_by_body on run_artifacts (sha256);
create index page_reads_by_body on page_reads (sha256);
