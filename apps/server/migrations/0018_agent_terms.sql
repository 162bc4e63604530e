-- BM25's term statistics per agent: how many of the agent's chunks contain each lexeme of their
-- full-text vectors (`df`), and, in the row whose term is '' (no lexeme is empty), how many
-- chunks the agent has. A search reads its words' document frequencies here with one index
-- lookup instead of counting matching chunks on every query.
--
-- Kept by statement-level triggers on `chunks`, so every path that writes or removes chunks
-- (index jobs, re-indexing, a document, source or agent deleted through cascades) keeps the
-- counts exact within its own transaction. Terms whose count falls to 0 keep their row (a
-- re-indexed page brings the same words back); a count of 0 reads as an unknown word.
-- Rows are upserted in (agent_id, term) order, so concurrent writers on PostgreSQL lock common
-- terms in the same order and wait for each other rather than deadlock.

create table agent_terms (
  agent_id text not null references agents (id) on delete cascade,
  term text not null,
  df integer not null,
  primary key (agent_id, term)
);

create function agent_terms_count_added() returns trigger language plpgsql as $$
begin
  insert into agent_terms (agent_id, term, df)
  select t.agent_id, t.term, count(*)::int
  from (
    select n.agent_id, l.lexeme as term from added_chunks n, unnest(n.tsv) as l
    union all
    select n.agent_id, '' from added_chunks n
  ) as t
  group by t.agent_id, t.term
  order by t.agent_id, t.term
  on conflict (agent_id, term) do update set df = agent_terms.df + excluded.df;
  return null;
end $$;

create function agent_terms_count_removed() returns trigger language plpgsql as $$
begin
  update agent_terms a set df = greatest(a.df - r.df, 0)
  from (
    select t.agent_id, t.term, count(*)::int as df
    from (
      select o.agent_id, l.lexeme as term from removed_chunks o, unnest(o.tsv) as l
      union all
      select o.agent_id, '' from removed_chunks o
    ) as t
    group by t.agent_id, t.term
    order by t.agent_id, t.term
  ) as r
  where a.agent_id = r.agent_id and a.term = r.term;
  return null;
end $$;

create trigger chunks_terms_added after insert on chunks
  referencing new table as added_chunks
  for each statement execute function agent_terms_count_added();

create trigger chunks_terms_removed after delete on chunks
  referencing old table as removed_chunks
  for each statement execute function agent_terms_count_removed();

-- A chunk's text (and so its vector) is never updated in place, but if one ever is, the counts
-- follow: the old rows' terms out, the new rows' terms in, by the same two functions. (A trigger
-- with transition tables cannot name columns, so these fire on any update of chunks.)
create trigger chunks_terms_updated_out after update on chunks
  referencing old table as removed_chunks
  for each statement execute function agent_terms_count_removed();

create trigger chunks_terms_updated_in after update on chunks
  referencing new table as added_chunks
  for each statement execute function agent_terms_count_added();

insert into agent_terms (agent_id, term, df)
select t.agent_id, t.term, count(*)::int
from (
  select c.agent_id, l.lexeme as term from chunks c, unnest(c.tsv) as l
  union all
  select c.agent_id, '' from chunks c
) as t
group by t.agent_id, t.term;
