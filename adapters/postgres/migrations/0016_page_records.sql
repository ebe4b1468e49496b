-- Issue 17, decision 0034: a page's records stored once, by the digest of their JSON.
--
-- A deterministic run's facts (run_evidence.facts) are its pages' records in page order, and the
-- page reads it keeps repeat those records for the next run to reuse: ~940 KB and ~690 KB of JSON for
-- a 50-page, 1000-record run, and an unchanged re-run wrote its ~940 KB of facts again. page_records
-- keeps each page's records once, content-addressed like page_bodies (never deleted: any run's facts
-- may name them). A page read names its records (records_key; its extraction then keeps only where
-- pagination goes, and its entries or entries_observation_id as before), and a run's facts may be
-- stored as the list of its pages' records ({"pages": [{"url", "records"}]}) when they are exactly
-- those. Rows written before this migration keep their records inline and read as before; a process
-- built before it refuses an extraction without records (its decoder requires them) and parses the page.
create table page_records (
  key text primary key,
  records json not null
);

do $$
begin
  execute 'alter table page_records alter column records set compression lz4';
exception
  when feature_not_supported or syntax_error then
    raise notice 'lz4 compression is not available on this server; page_records keeps the default compression';
end
$$;

alter table page_reads add column records_key text;
