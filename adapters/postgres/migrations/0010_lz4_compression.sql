-- The large values an acceptance writes (page bodies, a run's evidence, observations, trace
-- progress) are TOASTed and compressed inside the acceptance transaction. pglz, the default,
-- cost ~30 ms of it on the 50-page books run (decision 0020); lz4 does the same in about half
-- the time. Only values written from now on use it: stored ones stay pglz and read as before.
-- lz4 needs PostgreSQL 14+ built with it; on a server without it this changes nothing.
do $$
begin
  execute 'alter table page_bodies alter column body set compression lz4';
  execute 'alter table run_evidence alter column trace set compression lz4, alter column facts set compression lz4,
             alter column failures set compression lz4, alter column plan set compression lz4,
             alter column recipe set compression lz4';
  execute 'alter table observations alter column document set compression lz4';
  execute 'alter table run_trace_progress alter column trace set compression lz4';
  execute 'alter table run_artifacts alter column body set compression lz4';
  execute 'alter table rows alter column data set compression lz4, alter column evidence set compression lz4';
  execute 'alter table revisions alter column data set compression lz4, alter column evidence set compression lz4,
             alter column before set compression lz4';
exception
  when feature_not_supported or syntax_error then
    raise notice 'lz4 compression is not available on this server; columns keep the default compression';
end
$$;
