-- Issue 17, decision 0035: an observation's document and a page's records are kept as text.
--
-- Both are written whole by an acceptance and read whole (getObservations, a re-run's kept reads, a
-- run's facts), parsed by the host; nothing in SQL looks inside them. As json the server checked every
-- byte on the way in: 8.4 ms of server time for a 50-page books run's 1.3 MB of documents, against
-- 0.6 ms as text, and the page records' 0.69 MB twice (the recordset parameter, then each value).
-- New rows keep them in the text columns added here; rows written before keep theirs in json and read
-- the same (coalesce). Adding nullable columns rewrites nothing; the checks skip existing rows.
alter table observations add column document_text text;
alter table observations alter column document drop not null;
alter table observations add constraint observations_document_kept
  check (document is not null or document_text is not null) not valid;

alter table page_records add column records_text text;
alter table page_records alter column records drop not null;
alter table page_records add constraint page_records_records_kept
  check (records is not null or records_text is not null) not valid;

-- lz4 for the new columns as for the old ones (0010, 0015, 0016), where the server has it.
do $$
begin
  execute 'alter table observations alter column document_text set compression lz4';
  execute 'alter table page_records alter column records_text set compression lz4';
exception
  when feature_not_supported or syntax_error then
    raise notice 'lz4 compression is not available on this server; the text columns keep the default compression';
end
$$;
