-- The operator inbox: per-user read marks (unread counts), internal notes the visitor never
-- sees, the workspace's saved replies, and indexes behind the inbox filters.
-- Written to the PostgreSQL 15 subset; runs unchanged on PGlite.

-- A user has read a conversation up to its message created at last_read_message_at.
create table conversation_reads (
  user_id text not null references users (id) on delete cascade,
  conversation_id text not null references conversations (id) on delete cascade,
  workspace_id text not null references workspaces (id) on delete cascade,
  last_read_message_at timestamptz not null,
  updated_at timestamptz not null default now(),
  primary key (user_id, conversation_id)
);

-- Notes operators leave on a conversation; only the team sees them (never a widget answer).
create table conversation_notes (
  id text primary key,
  workspace_id text not null references workspaces (id) on delete cascade,
  conversation_id text not null references conversations (id) on delete cascade,
  author_user_id text references users (id) on delete set null,
  body text not null,
  created_at timestamptz not null default now()
);
create index conversation_notes_conversation_idx on conversation_notes (conversation_id, created_at, id);

-- Replies an operator picks from the composer; titles are unique per workspace, ignoring case.
create table saved_replies (
  id text primary key,
  workspace_id text not null references workspaces (id) on delete cascade,
  title text not null,
  body text not null,
  created_by_user_id text references users (id) on delete set null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index saved_replies_workspace_title_key on saved_replies (workspace_id, lower(title));

-- The inbox filters walk (workspace, status) and (workspace, claimer) newest first.
create index conversations_workspace_status_idx on conversations (workspace_id, status, created_at desc, id desc);
create index conversations_claimed_by_idx on conversations (workspace_id, claimed_by_user_id, created_at desc, id desc)
  where claimed_by_user_id is not null;
-- The conversation timeline reads audit rows of one target through audit_logs_target_idx
-- (workspace, target type, target id), which 0027 creates for the audit log viewer.
