-- Public knowledge base: markdown articles per workspace, served at /kb/{workspace}/{slug}
-- once published. Written to the PostgreSQL 15 subset; runs unchanged on PGlite.

create table kb_articles (
  id text primary key,
  workspace_id text not null references workspaces (id) on delete cascade,
  title text not null,
  slug text not null,
  body_markdown text not null default '',
  is_published boolean not null default false,
  published_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint kb_articles_workspace_slug_key unique (workspace_id, slug)
);
create index kb_articles_published_idx on kb_articles (workspace_id, is_published, published_at);
