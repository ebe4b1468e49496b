-- A run's evidence (trace, facts, failures, plan, recipe) and the trace of a run in flight are written
-- whole and read whole, never queried inside: stored as json (the text, checked) instead of jsonb
-- (parsed into a tree on every write), they cost about half as much to write. The books run's
-- evidence is ~1.2 MB, written inside the acceptance transaction after its stamp (decision 0024).
-- Reads are unchanged: pg parses json and jsonb alike. Stored values are converted once, here.
alter table run_evidence
  alter column trace type json using trace::json,
  alter column facts type json using facts::json,
  alter column failures type json using failures::json,
  alter column plan type json using plan::json,
  alter column recipe type json using recipe::json;
alter table run_trace_progress alter column trace type json using trace::json;
-- The type change keeps each column's compression; said again so a server that has lz4 uses it.
do $$
begin
  execute 'alter table run_evidence alter column trace set compression lz4, alter column facts set compression lz4,
             alter column failures set compression lz4, alter column plan set compression lz4,
             alter column recipe set compression lz4';
  execute 'alter table run_trace_progress alter column trace set compression lz4';
exception
  when feature_not_supported or syntax_error then
    raise notice 'lz4 compression is not available on this server; columns keep the default compression';
end
$$;
