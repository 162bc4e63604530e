-- Every page a fetch of a crawl or sitemap source could not store, with the reason verbatim
-- (`GET /sources/{id}/failures`). A fetch clears its source's list when it starts, so the list
-- is that of the running fetch, or of the last one.
create table source_failures (
  id text primary key,
  source_id text not null references sources (id) on delete cascade,
  url text not null,
  reason text not null,
  at timestamptz not null default now()
);
create index source_failures_source_idx on source_failures (source_id, id);
