-- Admin sessions: a signed-in user's browser holds a random secret in an HttpOnly cookie; only
-- its SHA-256 is stored. The session acts in the user's default workspace at sign-in, for a
-- fixed lifetime; signing out or removing the membership ends it.

create table admin_sessions (
  id text primary key,
  user_id text not null references users (id) on delete cascade,
  workspace_id text not null references workspaces (id) on delete cascade,
  secret_hash text not null unique,
  ip text,
  user_agent text,
  created_at timestamptz not null default now(),
  last_seen_at timestamptz not null default now(),
  expires_at timestamptz not null
);
create index admin_sessions_user_idx on admin_sessions (user_id);
