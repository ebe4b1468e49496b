-- A page body is stored once per content digest (issue 17): an unchanged page read again by every
-- run would otherwise store the same bytes per run. run_artifacts rows written from now on keep
-- body null and find their body here by sha256 (truncated artifacts have none); rows written
-- before keep their own body, which is read first.
create table page_bodies (
  sha256 text primary key,
  body bytea not null
);
