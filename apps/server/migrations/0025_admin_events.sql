-- The admin event stream (GET /api/v1/admin/stream): each stored event is written in the same
-- transaction as the change it reports, with a pg_notify on channel `admin_events`; the stream
-- replays rows after a client's Last-Event-ID. The store maintenance job prunes rows older than
-- ADMIN_EVENT_RETENTION (24 h). Typing signals are never stored.
-- Operator presence: one row per open stream of a user who may reply, refreshed by a heartbeat
-- while the stream is open and ignored once it has not been refreshed for two heartbeats.
-- Written to the PostgreSQL 15 subset; runs unchanged on PGlite.

create table admin_events (
  id bigserial primary key,
  workspace_id text not null references workspaces (id) on delete cascade,
  type text not null,
  payload jsonb not null,
  created_at timestamptz not null default now()
);
create index admin_events_workspace_idx on admin_events (workspace_id, id);
create index admin_events_created_idx on admin_events (created_at);

-- Every stored event is notified by the insert itself, so a write that stores its event in the
-- same statement or transaction (a CTE, or publishEvent) notifies on commit, never on rollback.
-- The payload is {"workspace_id", "event"}: the stored event with its id.
create function admin_events_notify() returns trigger language plpgsql as $$
begin
  perform pg_notify('admin_events', json_build_object(
    'workspace_id', new.workspace_id,
    'event', new.payload || jsonb_build_object('id', new.id::text)
  )::text);
  return null;
end;
$$;
create trigger admin_events_notify after insert on admin_events
  for each row execute function admin_events_notify();

create table operator_presence (
  stream_id text primary key,
  workspace_id text not null references workspaces (id) on delete cascade,
  user_id text not null references users (id) on delete cascade,
  seen_at timestamptz not null
);
create index operator_presence_workspace_idx on operator_presence (workspace_id, seen_at);

-- The operator holding a conversation is typing (POST /api/v1/admin/conversations/:id/typing):
-- the widget's poll says so for a few seconds after.
alter table conversations add column operator_typing_at timestamptz;
