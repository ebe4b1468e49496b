-- Every authenticated answer carries the owner's balance (X-Credits-Remaining), and POST /runs and
-- each acceptance read it too. Summing the ledger for each read grows with the owner's history (one
-- charge per accepted run, for as long as the owner exists). The owner row now keeps the sum. The
-- database maintains it, in the same transaction as each ledger insert, so it cannot drift from the
-- ledger; the ledger stays append-only, and updating or deleting an entry is refused.
alter table owners add column balance bigint not null default 0;
update owners o set balance = coalesce((select sum(l.amount) from ledger_entries l where l.owner_id = o.id), 0);

-- `set search_path from current`: the function finds this schema's owners table whatever the caller's path.
create function ledger_entry_adds_to_balance() returns trigger language plpgsql set search_path from current as $$
begin
  update owners set balance = balance + new.amount where id = new.owner_id;
  return null;
end
$$;
create trigger ledger_entries_balance after insert on ledger_entries
  for each row execute function ledger_entry_adds_to_balance();

create function ledger_entries_are_append_only() returns trigger language plpgsql as $$
begin
  raise exception 'ledger entries are append-only: the owner''s balance is their sum';
end
$$;
create trigger ledger_entries_append_only before update or delete on ledger_entries
  for each row execute function ledger_entries_are_append_only();
