-- The widget surface: visitors, their conversations and messages, the answer turns behind
-- them, leads, behaviour events, outgoing webhooks with their delivery log, and the
-- workspace's own model keys (BYOK). Agents gain their widget behaviour settings.

alter table agents add column behavior_rules jsonb not null default '[]';
alter table agents add column auto_index_pages boolean not null default false;
alter table agents add column widget_features jsonb not null default '{"leads": true, "human": true, "satisfaction": true}';

-- One visitor per browser (anon_id) and agent.
create table visitors (
  id text primary key,
  workspace_id text not null references workspaces (id) on delete cascade,
  agent_id text not null references agents (id) on delete cascade,
  anon_id text not null,
  locale text,
  created_at timestamptz not null default now(),
  last_seen_at timestamptz not null default now()
);
create unique index visitors_agent_anon_key on visitors (agent_id, anon_id);

-- status: open (the bot answers), waiting (a human was requested), claimed (an operator
-- answers; the bot is silent), closed.
create table conversations (
  id text primary key,
  workspace_id text not null references workspaces (id) on delete cascade,
  agent_id text not null references agents (id) on delete cascade,
  visitor_id text not null references visitors (id) on delete cascade,
  status text not null default 'open',
  human_requested_at timestamptz,
  claimed_by_user_id text references users (id) on delete set null,
  claimed_at timestamptz,
  shopper_wp_user_id bigint,
  shopper_email_hash text,
  shopper_verified_at timestamptz,
  page_url text,
  page_title text,
  referrer text,
  satisfaction_rating smallint,
  satisfaction_comment text,
  satisfaction_at timestamptz,
  last_message_at timestamptz,
  visitor_typing_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index conversations_visitor_idx on conversations (visitor_id, created_at desc);
create index conversations_workspace_idx on conversations (workspace_id, created_at desc);

-- role: visitor, assistant, operator, system.
create table messages (
  id text primary key,
  workspace_id text not null references workspaces (id) on delete cascade,
  conversation_id text not null references conversations (id) on delete cascade,
  role text not null,
  content text not null,
  citations jsonb not null default '[]',
  blocks jsonb not null default '[]',
  author_user_id text references users (id) on delete set null,
  created_at timestamptz not null default now()
);
create index messages_conversation_idx on messages (conversation_id, created_at, id);

-- One answered question: what was asked, what was answered, which chunks (and scores) were
-- behind it, which model, how long it took. Satisfaction ties back to it.
create table answer_turns (
  id text primary key,
  workspace_id text not null references workspaces (id) on delete cascade,
  agent_id text not null references agents (id) on delete cascade,
  conversation_id text not null references conversations (id) on delete cascade,
  question_message_id text references messages (id) on delete set null,
  answer_message_id text references messages (id) on delete set null,
  question text not null,
  answer text not null,
  retrieved jsonb not null default '[]',
  outcome text not null,
  provider text not null,
  latency_ms integer not null,
  first_token_ms integer,
  created_at timestamptz not null default now()
);
create index answer_turns_conversation_idx on answer_turns (conversation_id, created_at);

create table leads (
  id text primary key,
  workspace_id text not null references workspaces (id) on delete cascade,
  agent_id text not null references agents (id) on delete cascade,
  visitor_id text references visitors (id) on delete cascade,
  conversation_id text references conversations (id) on delete set null,
  email text not null,
  email_normalized text not null,
  name text not null default '',
  phone text not null default '',
  site_user_id bigint,
  pushed_at timestamptz,
  push_error text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index leads_agent_email_key on leads (agent_id, email_normalized);
create index leads_workspace_idx on leads (workspace_id, created_at desc);

create table widget_events (
  id text primary key,
  workspace_id text not null references workspaces (id) on delete cascade,
  agent_id text not null references agents (id) on delete cascade,
  conversation_id text not null references conversations (id) on delete cascade,
  kind text not null,
  data jsonb not null default '{}',
  created_at timestamptz not null default now()
);
create index widget_events_conversation_idx on widget_events (conversation_id, created_at);

-- Outgoing webhooks; the signing secret is sealed with APP_KEY (bound to the webhook id).
create table webhooks (
  id text primary key,
  workspace_id text not null references workspaces (id) on delete cascade,
  url text not null,
  events text[] not null,
  secret_sealed text not null,
  is_active boolean not null default true,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index webhooks_workspace_idx on webhooks (workspace_id);

-- status: pending, delivered, failed (gave up after the last retry).
create table webhook_deliveries (
  id text primary key,
  workspace_id text not null references workspaces (id) on delete cascade,
  webhook_id text not null references webhooks (id) on delete cascade,
  event text not null,
  subject_id text,
  payload jsonb not null,
  status text not null default 'pending',
  attempts integer not null default 0,
  last_status_code integer,
  last_error text,
  delivered_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index webhook_deliveries_webhook_idx on webhook_deliveries (webhook_id, created_at desc);
create index webhook_deliveries_subject_idx on webhook_deliveries (subject_id);

-- A workspace's own model key (BYOK), sealed with APP_KEY; used only while the workspace
-- owner's byok_enabled allows it.
create table workspace_llm_keys (
  workspace_id text primary key references workspaces (id) on delete cascade,
  provider text not null,
  model text,
  key_sealed text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
