-- Mail and password reset. Every mail is a row first and a `send-mail` job second: the job carries
-- the row's id only, the row keeps the status a failure leaves (`failed`, `last_error`), and the
-- rendered bodies are sealed with APP_KEY (a reset mail holds a live link) and dropped once sent.
-- Reset tokens are signed; the row of each one (its `jti`) is what makes it single-use.
-- Written to the PostgreSQL 15 subset; runs unchanged on PGlite.

create table mail_messages (
  id text primary key,
  kind text not null,
  user_id text references users (id) on delete set null,
  workspace_id text references workspaces (id) on delete set null,
  to_address text not null,
  language text not null default 'en',
  subject text not null,
  body_sealed text,
  status text not null default 'pending' check (status in ('pending', 'sent', 'failed')),
  attempts integer not null default 0,
  last_error text,
  transport text,
  outbox_file text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  sent_at timestamptz
);
create index mail_messages_status_idx on mail_messages (status, created_at);
create index mail_messages_workspace_idx on mail_messages (workspace_id, id);

create table password_reset_tokens (
  id text primary key,
  user_id text not null references users (id) on delete cascade,
  requested_ip text,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  used_at timestamptz
);
create index password_reset_tokens_user_idx on password_reset_tokens (user_id);
