-- Issue 35: the adapter stores and reads; every record is kept whole in its own table.
--
-- From here on a page read's extraction holds its records and entries, a run's facts are stored as
-- they are, and an observation's document is in document_text. What was kept apart before (page
-- records by digest, migration 0016; an extraction's entries named by its observation, 0013; facts
-- stored as their pages' records, 0016; documents as json, before 0017) is put back whole here, so
-- reads need only the one form. The columns and the page_records table this leaves unused stay until
-- no process built before this migration runs (a later migration may drop them).
--
-- Row by row, each in a block of its own: the server cannot look inside JSON holding \u0000 (json keeps
-- it, text cannot), so such a page read is dropped (the next run parses that page) and such facts stay
-- as they were (reading them fails, naming the run, as it did when their records were gone).

-- Observation documents as text (a cast reads no value inside).
update observations set document_text = document::text, document = null
 where document_text is null and document is not null;

do $$
declare
  kept record;
begin
  -- Page reads' extractions whole: their own records and entries where they kept them, else the ones
  -- they named. One whose records or entries are gone keeps a null there, which the decoder refuses:
  -- the next run parses that page.
  for kept in select dataset_id, url from page_reads where records_key is not null or entries_observation_id is not null loop
    begin
      update page_reads r
         set extraction = json_build_object(
               'records', coalesce(r.extraction -> 'records',
                                   (select coalesce(k.records_text::json, k.records) from page_records k where k.key = r.records_key)),
               'entries', coalesce(r.extraction -> 'entries',
                                   (select o.document_text::json -> 'entries' from observations o where o.id = r.entries_observation_id)),
               'next', r.extraction -> 'next'),
             records_key = null,
             entries_observation_id = null
       where r.dataset_id = kept.dataset_id and r.url = kept.url;
    exception when others then
      delete from page_reads r where r.dataset_id = kept.dataset_id and r.url = kept.url;
    end;
  end loop;

  -- Facts stored as their pages' records ({"pages": [{"url", "records"}]}) as the facts themselves:
  -- each record of each page, in order, as {rowKey, pageUrl, index, cells: [{fieldId, value,
  -- missingReason, raw}]}. Facts naming records that are gone stay as they are.
  for kept in select run_id from run_evidence where facts::text like '{"pages":%' loop
    begin
      update run_evidence e
         set facts = coalesce((
           select json_agg(json_build_object(
                    'rowKey', r.value -> 'rowKey',
                    'pageUrl', p.value ->> 'url',
                    'index', r.value -> 'index',
                    'cells', (select coalesce(json_agg(json_build_object('fieldId', c.value -> 0, 'value', c.value -> 1,
                                                                         'missingReason', c.value -> 2, 'raw', c.value -> 3)
                                                       order by c.n), '[]'::json)
                                from json_array_elements(r.value -> 'cells') with ordinality as c(value, n)))
                  order by p.n, r.n)
             from json_array_elements(e.facts -> 'pages') with ordinality as p(value, n)
             join page_records k on k.key = p.value ->> 'records'
             cross join lateral json_array_elements(coalesce(k.records_text::json, k.records)) with ordinality as r(value, n)
         ), '[]'::json)
       where e.run_id = kept.run_id
         and not exists (select 1 from json_array_elements(e.facts -> 'pages') as p(value)
                          where not exists (select 1 from page_records k where k.key = p.value ->> 'records'));
    exception when others then
      null;
    end;
  end loop;
end
$$;
