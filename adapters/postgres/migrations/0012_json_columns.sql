-- Issue 17, decision 0024. The JSON an acceptance writes in bulk is written whole and read whole,
-- never queried inside: a row's and a revision's state (data, evidence, overrides, missing reasons,
-- the before-images, a research row's identity), a run's evidence (trace, facts, failures, plan,
-- recipe) and the trace of a run in flight. As json (the text, checked) instead of jsonb (parsed
-- into a tree and re-serialised on every write) they cost markedly less to write, and reading
-- them back returns the stored text as it is. pg parses json and jsonb alike, so reads are
-- unchanged. No statement compares, indexes or looks inside these columns. Stored values are
-- converted once, here (each table is rewritten).
alter table rows
  alter column data type json using data::json,
  alter column evidence type json using evidence::json,
  alter column overrides type json using overrides::json,
  alter column missing_reasons type json using missing_reasons::json,
  alter column identity type json using identity::json;
alter table revisions
  alter column data type json using data::json,
  alter column evidence type json using evidence::json,
  alter column overrides type json using overrides::json,
  alter column missing_reasons type json using missing_reasons::json,
  alter column before type json using before::json,
  alter column before_overrides type json using before_overrides::json;
alter table run_evidence
  alter column trace type json using trace::json,
  alter column facts type json using facts::json,
  alter column failures type json using failures::json,
  alter column plan type json using plan::json,
  alter column recipe type json using recipe::json;
alter table run_trace_progress alter column trace type json using trace::json;
-- The compression of migration 0010, said again for the converted columns (lz4 where available).
do $$
begin
  execute 'alter table run_evidence alter column trace set compression lz4, alter column facts set compression lz4,
             alter column failures set compression lz4, alter column plan set compression lz4,
             alter column recipe set compression lz4';
  execute 'alter table run_trace_progress alter column trace set compression lz4';
  execute 'alter table rows alter column data set compression lz4, alter column evidence set compression lz4';
  execute 'alter table revisions alter column data set compression lz4, alter column evidence set compression lz4,
             alter column before set compression lz4';
exception
  when feature_not_supported or syntax_error then
    raise notice 'lz4 compression is not available on this server; columns keep the default compression';
end
$$;
