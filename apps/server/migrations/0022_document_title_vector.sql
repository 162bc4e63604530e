-- Each document's title and URL path as a full-text vector, written when the document is
-- indexed (in its chunks' text-search configuration), so the ranking's title/URL field reads it
-- instead of building it for every candidate page on every search. Null until the document is
-- next indexed; the ranking builds it on the fly meanwhile.

alter table documents add column title_tsv tsvector;

-- Indexed documents get theirs now, in the configuration their chunks were built with: the
-- document's language, else its agent's, mapped as the service maps them (text-search-config.ts),
-- `simple` for any other language or a configuration this database lacks.
with languages (code, cfg) as (values
  ('ar', 'arabic'), ('da', 'danish'), ('de', 'german'), ('el', 'greek'), ('en', 'english'),
  ('es', 'spanish'), ('fi', 'finnish'), ('fr', 'french'), ('hu', 'hungarian'), ('id', 'indonesian'),
  ('it', 'italian'), ('nb', 'norwegian'), ('nl', 'dutch'), ('nn', 'norwegian'), ('no', 'norwegian'),
  ('pt', 'portuguese'), ('ro', 'romanian'), ('ru', 'russian'), ('sv', 'swedish'), ('tr', 'turkish')
), configured as (
  select d.id, coalesce(
    (select c.oid::regconfig from languages l join pg_ts_config c on c.cfgname = l.cfg
     where l.code = split_part(coalesce(d.language, a.language_default), '-', 1)),
    'simple'::regconfig) as cfg
  from documents d join agents a on a.id = d.agent_id
  where d.index_status = 'indexed'
)
update documents d
set title_tsv = to_tsvector(c.cfg, coalesce(d.title, '') || ' ' ||
  regexp_replace(regexp_replace(coalesce(d.url, ''), '^[a-z]+://[^/]*', ''), '[^[:alnum:]]+', ' ', 'g'))
from configured c
where c.id = d.id;
