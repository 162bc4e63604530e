-- Site integration: knowledge sources (one per agent and site for synced content), the
-- documents a site pushes (posts, products), and the chunks retrieval reads.

create table sources (
  id text primary key,
  workspace_id text not null references workspaces (id) on delete cascade,
  agent_id text not null references agents (id) on delete cascade,
  type text not null,
  name text not null default '',
  status text not null default 'ready',
  error text,
  config jsonb not null default '{}',
  site_url text,
  plugin_version text,
  plugin_base text,
  api_token_id text references api_tokens (id) on delete set null,
  last_synced_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index sources_workspace_idx on sources (workspace_id, agent_id);
create unique index sources_agent_site_key on sources (agent_id, type, site_url) where site_url is not null;

create table documents (
  id text primary key,
  workspace_id text not null references workspaces (id) on delete cascade,
  agent_id text not null references agents (id) on delete cascade,
  source_id text not null references sources (id) on delete cascade,
  external_id text not null,
  kind text not null,
  title text not null default '',
  url text,
  language text,
  content_text text not null default '',
  content_hash text not null,
  metadata jsonb not null default '{}',
  modified_at timestamptz,
  index_status text not null default 'pending',
  indexed_hash text,
  indexed_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint documents_source_external_key unique (source_id, external_id)
);
create index documents_agent_idx on documents (workspace_id, agent_id);

create table chunks (
  id text primary key,
  workspace_id text not null references workspaces (id) on delete cascade,
  agent_id text not null references agents (id) on delete cascade,
  document_id text not null references documents (id) on delete cascade,
  ordinal integer not null,
  content text not null,
  tsv tsvector not null,
  created_at timestamptz not null default now(),
  constraint chunks_document_ordinal_key unique (document_id, ordinal)
);
create index chunks_agent_idx on chunks (workspace_id, agent_id);
create index chunks_tsv_idx on chunks using gin (tsv);
