-- The page reads of each dataset's newest accepted run (decision 0021): per URL the engine asked
-- for, where the read ended, the body's digest, the site's validators (ETag, Last-Modified) and
-- what the page yielded under the recipe (`recipe`, a digest): its records' cells, observation
-- entries and next page. The next run reuses an extraction whose digest and recipe match instead
-- of parsing the page, and asks the site conditionally; bodies stay in page_bodies by digest.
-- An acceptance replaces the dataset's rows: it writes an extraction only for pages it parsed
-- (a reused page keeps the stored one) and deletes the rows of pages it did not read.
create table page_reads (
  dataset_id uuid not null references datasets (id),
  url text not null,
  run_id uuid not null references runs (id),
  recipe text not null,
  final_url text not null,
  sha256 text not null,
  content_type text not null,
  etag text,
  last_modified text,
  -- null: none kept (the engine then parses the page).
  extraction json,
  primary key (dataset_id, url)
);

do $$
begin
  execute 'alter table page_reads alter column extraction set compression lz4';
exception
  when feature_not_supported or syntax_error then
    raise notice 'lz4 compression is not available on this server; page_reads keeps the default compression';
end
$$;
