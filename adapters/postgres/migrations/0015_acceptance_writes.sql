-- Issue 17, decision 0029: what an acceptance writes in bulk costs less to write.
--
-- Observations are written whole and read whole (getObservations) or one key of them (a page read's
-- entries, `document->'entries'`, which json answers as jsonb does). As json (the text, checked)
-- instead of jsonb (parsed into a tree) they are written with COPY and read back as they were sent.
alter table observations alter column document type json using document::json;
-- The type change keeps no column compression: lz4 again where the server has it (as in 0010).
do $$
begin
  execute 'alter table observations alter column document set compression lz4';
exception
  when feature_not_supported or syntax_error then
    raise notice 'lz4 compression is not available on this server; observations keep the default compression';
end
$$;

-- Rows and revisions are written only in a transaction that has first locked its dataset's row
-- (acceptRun, applyEdit) and allocated the revisions' sequences from it (which fails for a dataset
-- that does not exist), and datasets are never deleted. The foreign keys checked the same thing
-- again for every row and revision written, ~7 ms per 1000 each (a trigger per row taking a key
-- share lock on the row the transaction already holds). runs, page_reads and the rest keep theirs.
alter table rows drop constraint if exists rows_dataset_id_fkey;
alter table revisions drop constraint if exists revisions_dataset_id_fkey;
