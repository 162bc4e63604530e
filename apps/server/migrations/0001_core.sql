-- Core tenancy: workspaces, users, memberships, agents, API tokens, audit logs.
-- Written to the PostgreSQL 15 subset; runs unchanged on PGlite.

create table workspaces (
  id text primary key,
  name text not null,
  slug text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint workspaces_slug_key unique (slug)
);

create table users (
  id text primary key,
  email text not null,
  name text not null default '',
  password_hash text not null,
  role text not null default 'user' check (role in ('user', 'admin')),
  byok_enabled boolean not null default false,
  default_workspace_id text references workspaces (id) on delete set null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index users_email_key on users (lower(email));

create table memberships (
  workspace_id text not null references workspaces (id) on delete cascade,
  user_id text not null references users (id) on delete cascade,
  role text not null check (role in ('owner', 'admin', 'editor', 'viewer')),
  created_at timestamptz not null default now(),
  primary key (workspace_id, user_id)
);
create index memberships_user_idx on memberships (user_id);

create table agents (
  id text primary key,
  workspace_id text not null references workspaces (id) on delete cascade,
  name text not null,
  site_type text not null default 'generic',
  language_default text,
  is_published boolean not null default false,
  allowed_origins text[] not null default '{}',
  theme jsonb not null,
  system_prompt text not null default '',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index agents_workspace_idx on agents (workspace_id, id);

create table api_tokens (
  id text primary key,
  workspace_id text not null references workspaces (id) on delete cascade,
  name text not null,
  token_hash text not null,
  token_prefix text not null,
  abilities text[] not null,
  shopper_signing_secret text not null,
  created_by_user_id text references users (id) on delete set null,
  last_used_at timestamptz,
  revoked_at timestamptz,
  created_at timestamptz not null default now(),
  constraint api_tokens_token_hash_key unique (token_hash)
);
create index api_tokens_workspace_idx on api_tokens (workspace_id, id);

create table audit_logs (
  id text primary key,
  workspace_id text not null references workspaces (id) on delete cascade,
  actor_type text not null,
  actor_id text,
  action text not null,
  target_type text,
  target_id text,
  metadata jsonb not null default '{}',
  request_id text,
  created_at timestamptz not null default now()
);
create index audit_logs_workspace_idx on audit_logs (workspace_id, id desc);
