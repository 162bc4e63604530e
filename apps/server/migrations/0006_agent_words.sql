-- The words of each agent's indexed text, so typo tolerance compares a query word with short
-- vocabulary words (pg_trgm, indexed in db/optional-schema.ts) instead of scanning chunk text.
-- Words of deleted documents may linger: they only ever lead to a full-text query that finds
-- nothing.

create table agent_words (
  agent_id text not null references agents (id) on delete cascade,
  word text not null,
  primary key (agent_id, word)
);

insert into agent_words (agent_id, word)
select distinct c.agent_id, w.word
from chunks c, regexp_split_to_table(lower(c.content), '[^[:alnum:]]+') as w(word)
where length(w.word) between 3 and 32
on conflict do nothing;
