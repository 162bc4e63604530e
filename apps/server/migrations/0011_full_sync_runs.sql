-- Full syncs of a site's posts or products (posts/sync and products/sync with `full_sync`).
-- A run is open from its first batch to its final one; the final batch removes the source's
-- documents that no batch of the run listed and that no write (a delta, another sync) created
-- or changed since the run started.

create table full_sync_runs (
  source_id text not null references sources (id) on delete cascade,
  run_id text not null,
  started_at timestamptz not null default now(),
  last_batch_at timestamptz not null default now(),
  -- Set by the final batch; a finished run's batches (a retried final) remove nothing more.
  finished_at timestamptz,
  primary key (source_id, run_id)
);

-- The last full sync run that listed the document, and when.
alter table documents add column full_sync_run_id text;
alter table documents add column full_sync_listed_at timestamptz;
