-- Workspace invites: an owner or admin invites an email with a role; the mailed link carries a
-- signed token whose SHA-256 is stored here (never the token), valid 7 days and single use.
-- Written to the PostgreSQL 15 subset; runs unchanged on PGlite.

create table workspace_invites (
  id text primary key,
  workspace_id text not null references workspaces (id) on delete cascade,
  email text not null,
  role text not null check (role in ('owner', 'admin', 'editor', 'viewer')),
  token_hash text not null,
  invited_by_user_id text references users (id) on delete set null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  accepted_at timestamptz,
  accepted_user_id text references users (id) on delete set null,
  revoked_at timestamptz,
  constraint workspace_invites_token_hash_key unique (token_hash)
);
create index workspace_invites_workspace_idx on workspace_invites (workspace_id, created_at);
