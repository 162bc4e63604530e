-- The quality loop: each agent's golden set (questions and the pages that answer them) and the
-- evaluation runs over it (metrics, per-item ranks, misses, regressions against the last run).

-- origin: manual, question (a resolved agent question), correction (an answer correction);
-- origin_id names that record (no foreign key: those tables belong to another feature).
create table golden_items (
  id text primary key,
  workspace_id text not null references workspaces (id) on delete cascade,
  agent_id text not null references agents (id) on delete cascade,
  question text not null,
  expected_urls text[] not null default '{}',
  expected_document_ids text[] not null default '{}',
  note text,
  origin text not null default 'manual',
  origin_id text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index golden_items_agent_idx on golden_items (workspace_id, agent_id, id);
-- A question or correction becomes at most one item of the agent.
create unique index golden_items_origin_idx on golden_items (agent_id, origin, origin_id)
  where origin_id is not null;

-- status: queued, running, done, failed; trigger: manual, reindex.
create table evaluation_runs (
  id text primary key,
  workspace_id text not null references workspaces (id) on delete cascade,
  agent_id text not null references agents (id) on delete cascade,
  trigger text not null,
  status text not null default 'queued',
  metrics jsonb,
  results jsonb not null default '[]',
  misses jsonb not null default '[]',
  regressions jsonb not null default '[]',
  previous_run_id text,
  error text,
  started_at timestamptz,
  finished_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index evaluation_runs_agent_idx on evaluation_runs (workspace_id, agent_id, id);
-- Re-index runs are debounced per agent: at most one waits at a time (later triggers join it).
create unique index evaluation_runs_reindex_queued_idx on evaluation_runs (agent_id)
  where status = 'queued' and trigger = 'reindex';
